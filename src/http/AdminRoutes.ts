/**
 * The admin API under `/admin/v1`: organizations and their API keys. Every route needs
 * `Authorization: Bearer <GATEWAY_ADMIN_TOKEN>`; lists come as `{"object":"list","data":[...]}`.
 * Later features (shared tools, hydration, logs, analytics) add their routes beside these.
 */
import { Effect, Layer, Schema } from "effect"
import { HttpServerResponse } from "effect/http"
import { checkAllowedTools, LimitsInput, Name, parseExpiry } from "../admin/AdminInput.ts"
import { TargetBreaker } from "../core/TargetBreaker.ts"
import { decodeInput } from "../kernel/DecodeInput.ts"
import { ApiKeys } from "../keys/ApiKeys.ts"
import { Orgs } from "../orgs/Orgs.ts"
import { adminRoute, list, pathParam } from "./AdminRoute.ts"
import { readJsonBody } from "./JsonBody.ts"

const CreateOrg = Schema.Struct({ name: Name })

const ToolIds = Schema.NullOr(Schema.Array(Schema.String))

const CreateKey = Schema.Struct({
  name: Name,
  expires_at: Schema.optionalKey(Schema.NullOr(Schema.String)),
  allowed_svc_tool_ids: Schema.optionalKey(ToolIds),
  limits: Schema.optionalKey(LimitsInput)
})

const UpdateKey = Schema.Struct({
  name: Schema.optionalKey(Name),
  expires_at: Schema.optionalKey(Schema.NullOr(Schema.String)),
  allowed_svc_tool_ids: Schema.optionalKey(ToolIds),
  limits: Schema.optionalKey(LimitsInput)
})

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
    const allowedSvcToolIds = (yield* checkAllowedTools(input.allowed_svc_tool_ids)) ?? null
    const key = yield* (yield* ApiKeys).create(orgId, {
      name: input.name,
      expiresAt,
      allowedSvcToolIds,
      ...(input.limits === undefined ? {} : { limits: input.limits })
    })
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

const updateKey = adminRoute(
  "PATCH",
  "/keys/:key_id",
  Effect.gen(function*() {
    const keyId = yield* pathParam("key_id")
    const input = yield* decodeInput(UpdateKey)(yield* readJsonBody)
    const allowed = yield* checkAllowedTools(input.allowed_svc_tool_ids)
    const key = yield* (yield* ApiKeys).update(keyId, {
      ...(input.name === undefined ? {} : { name: input.name }),
      ...(input.expires_at === undefined ? {} : { expiresAt: yield* parseExpiry(input.expires_at) }),
      ...(allowed === undefined ? {} : { allowedSvcToolIds: allowed }),
      ...(input.limits === undefined ? {} : { limits: input.limits })
    })
    return HttpServerResponse.jsonUnsafe(key)
  })
)

const revokeKey = adminRoute(
  "DELETE",
  "/keys/:key_id",
  Effect.gen(function*() {
    const keyId = yield* pathParam("key_id")
    const key = yield* (yield* ApiKeys).revoke(keyId)
    return HttpServerResponse.jsonUnsafe(key)
  })
)

/** Every target whose circuit has left `closed` on this instance, with its state now. */
const listCircuits = adminRoute(
  "GET",
  "/circuits",
  Effect.gen(function*() {
    return list((yield* TargetBreaker).states())
  })
)

export const AdminRoutes = Layer.mergeAll(
  listCircuits,
  createOrg,
  listOrgs,
  getOrg,
  createKey,
  listKeys,
  getKey,
  updateKey,
  revokeKey
)
