/**
 * The admin API under `/admin/v1`: organizations and their API keys. Every route needs
 * `Authorization: Bearer <GATEWAY_ADMIN_TOKEN>`; lists come as `{"object":"list","data":[...]}`.
 * Later features (shared tools, hydration, logs, analytics) add their routes beside these.
 */
import { Effect, Layer, Schema } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { Orgs } from "../admin/Orgs.ts"
import { AdminAuth } from "../auth/AdminAuth.ts"
import { Auth } from "../auth/Auth.ts"
import { ApiKeys } from "../keys/ApiKeys.ts"
import { decodeInput } from "./DecodeInput.ts"
import { type EdgeError, respondWithErrors } from "./ErrorResponse.ts"
import { readJsonBody } from "./JsonBody.ts"
import { RequestError } from "./RequestError.ts"

const Name = Schema.String.check(
  Schema.isTrimmed({ message: "Expected no leading or trailing spaces" }),
  Schema.isMinLength(1, { message: "Expected a non-empty name" }),
  Schema.isMaxLength(200, { message: "Expected at most 200 characters" })
)

const CreateOrg = Schema.Struct({ name: Name })

const CreateKey = Schema.Struct({
  name: Name,
  expires_at: Schema.optionalKey(Schema.NullOr(Schema.String))
})

/** `expires_at` as a Date: an ISO 8601 date-time in the future, or null for a key that never expires. */
export const parseExpiry = (value: string | null | undefined): Effect.Effect<Date | null, RequestError> => {
  if (value === null || value === undefined) return Effect.succeed(null)
  const date = new Date(value)
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(date.getTime())) {
    return Effect.fail(RequestError.invalidField("expires_at", "Invalid value for 'expires_at': expected an ISO 8601 date-time such as 2030-01-31T00:00:00Z."))
  }
  if (date.getTime() <= Date.now()) {
    return Effect.fail(RequestError.invalidField("expires_at", "Invalid value for 'expires_at': the time is in the past."))
  }
  return Effect.succeed(date)
}

const list = <A>(data: ReadonlyArray<A>) => HttpServerResponse.jsonUnsafe({ object: "list", data })

const pathParam = (name: string) =>
  Effect.map(HttpRouter.params, (params) => params[name] ?? "")

/** An admin route: checks the admin token, then runs the handler; typed errors become JSON. */
const adminRoute = <E extends EdgeError, R>(
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

const createOrg = adminRoute(
  "POST",
  "/orgs",
  Effect.gen(function*() {
    const input = yield* decodeInput(CreateOrg)(yield* readJsonBody)
    const org = yield* (yield* Orgs).create(input.name)
    return HttpServerResponse.jsonUnsafe(org, { status: 201 })
  })
)

const listOrgs = adminRoute(
  "GET",
  "/orgs",
  Effect.gen(function*() {
    return list(yield* (yield* Orgs).list)
  })
)

const getOrg = adminRoute(
  "GET",
  "/orgs/:org_id",
  Effect.gen(function*() {
    const org = yield* (yield* Orgs).get(yield* pathParam("org_id"))
    return HttpServerResponse.jsonUnsafe(org)
  })
)

const createKey = adminRoute(
  "POST",
  "/orgs/:org_id/keys",
  Effect.gen(function*() {
    const orgId = yield* pathParam("org_id")
    const input = yield* decodeInput(CreateKey)(yield* readJsonBody)
    const expiresAt = yield* parseExpiry(input.expires_at)
    const key = yield* (yield* ApiKeys).create(orgId, { name: input.name, expiresAt })
    return HttpServerResponse.jsonUnsafe(key, { status: 201 })
  })
)

const listKeys = adminRoute(
  "GET",
  "/orgs/:org_id/keys",
  Effect.gen(function*() {
    return list(yield* (yield* ApiKeys).list(yield* pathParam("org_id")))
  })
)

const getKey = adminRoute(
  "GET",
  "/keys/:key_id",
  Effect.gen(function*() {
    return HttpServerResponse.jsonUnsafe(yield* (yield* ApiKeys).get(yield* pathParam("key_id")))
  })
)

const revokeKey = adminRoute(
  "DELETE",
  "/keys/:key_id",
  Effect.gen(function*() {
    const keyId = yield* pathParam("key_id")
    const key = yield* (yield* ApiKeys).revoke(keyId)
    ;(yield* Auth).forget(keyId)
    return HttpServerResponse.jsonUnsafe(key)
  })
)

export const AdminRoutes = Layer.mergeAll(createOrg, listOrgs, getOrg, createKey, listKeys, getKey, revokeKey)
