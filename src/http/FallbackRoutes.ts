/**
 * JSON answers for requests no route takes: 405 (with `allow`) on a known path with another method,
 * 404 elsewhere. The router's own default is an empty body, which OpenAI clients cannot read.
 */
import { Effect, Layer } from "effect"
import { HttpRouter, type HttpServerRequest, HttpServerResponse } from "effect/http"
import { MethodNotAllowed, RequestError, RouteNotFound } from "../kernel/RequestError.ts"
import { errorResponse } from "./ErrorResponse.ts"

/** The methods each public path accepts; admin paths answer 404 for unknown methods. */
const KNOWN: ReadonlyArray<{ readonly path: `/${string}`; readonly methods: ReadonlyArray<string> }> = [
  { path: "/v1/chat/completions", methods: ["POST"] },
  { path: "/chat/completions", methods: ["POST"] },
  { path: "/v1/models", methods: ["GET"] },
  { path: "/health", methods: ["GET"] },
  { path: "/ready", methods: ["GET"] },
  { path: "/metrics", methods: ["GET"] }
]

const notAllowed = (allowed: ReadonlyArray<string>) => (request: HttpServerRequest.HttpServerRequest) =>
  Effect.succeed(
    errorResponse(
      new RequestError({ reason: new MethodNotAllowed({ method: request.method, path: request.url, allowed }) })
    ).pipe(HttpServerResponse.setHeader("allow", allowed.join(", ")))
  )

const notFound = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.succeed(
    errorResponse(new RequestError({ reason: new RouteNotFound({ method: request.method, path: request.url }) }))
  )

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const

export const FallbackRoutes = Layer.mergeAll(
  HttpRouter.add("*", "/*", notFound),
  ...KNOWN.flatMap(({ methods, path }) =>
    METHODS.filter((method) => !methods.includes(method)).map((method) =>
      HttpRouter.add(method, path, notAllowed(methods))
    )
  )
)
