/** The shape every admin route shares: admin token first, typed errors as JSON, lists in OpenAI's envelope. */
import { Effect } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { AdminAuth } from "../auth/AdminAuth.ts"
import { type EdgeError, respondWithErrors } from "./ErrorResponse.ts"

export const list = <A>(data: ReadonlyArray<A>) => HttpServerResponse.jsonUnsafe({ object: "list", data })

export const pathParam = (name: string) => Effect.map(HttpRouter.params, (params) => params[name] ?? "")

/** An admin route: checks the admin token, then runs the handler; typed errors become JSON. */
export const adminRoute = <E extends EdgeError, R>(
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
  path: `/${string}`,
  handler: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
) =>
  HttpRouter.add(
    method,
    `/admin/v1${path}`,
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      yield* (yield* AdminAuth).check(request.headers["authorization"])
      return yield* handler
    }).pipe(respondWithErrors)
  )
