/**
 * The admin API's handlers, one group per resource of `AdminApi`. The server serves them
 * (`AdminApiLive.ts`) and the CLI runs the very same ones in process on the local store, so every
 * check lives here once. Bodies are read as every route of the gateway reads them (`readJsonBody`:
 * JSON whatever the content type, the size and depth limits) and decoded with the endpoint's own
 * schema; the request log's query parameters are checked by `RequestQueryParams.ts`, which names an
 * unknown one. Failures become the API's declared errors here, once (`core/Problem.ts` words them).
 */
import { Effect, Layer } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { AdminApi } from "../admin/AdminApi.ts"
import { adminApiError } from "../admin/AdminApiErrors.ts"
import { checkAllowedTools, parseExpiry, parseOrgUpdate } from "../admin/AdminInput.ts"
import { CreateKey, CreateOrg, SetOrgTool, UpdateKey } from "../admin/AdminPayloads.ts"
import { GatewayConfig } from "../Config.ts"
import { TargetBreaker } from "../core/TargetBreaker.ts"
import { decodeInput } from "../kernel/DecodeInput.ts"
import { CurrentPrincipal, orgsOf, requireAdmin, requireOwner, requireRead } from "../kernel/Principal.ts"
import { type ApiKeyInfo, ApiKeys } from "../keys/ApiKeys.ts"
import { RequestQueries } from "../logs/RequestQueries.ts"
import { parseAnalyticsParams, parseListParams, parseSessionsParams } from "../logs/RequestQueryParams.ts"
import { spendCsv, type SpendReport } from "../logs/SpendReport.ts"
import { Orgs } from "../orgs/Orgs.ts"
import { Policy } from "../tools/Policy.ts"
import { ToolCatalogue } from "../tools/ToolCatalogue.ts"
import { makeAudited } from "./Audited.ts"
import { describeError, type EdgeError } from "./ErrorResponse.ts"
import { readJsonBody } from "./JsonBody.ts"

/** A typed failure as the API's declared error of its status. */
export const apiError = (error: EdgeError) => {
  const described = describeError(error)
  return adminApiError(described.status, described.body.error)
}

const answer = <A, E extends EdgeError, R>(effect: Effect.Effect<A, E, R>) => Effect.mapError(effect, apiError)

const list = <A>(data: ReadonlyArray<A>) => ({ object: "list" as const, data })

const OrgsLive = HttpApiBuilder.group(AdminApi, "orgs", (handlers) =>
  Effect.gen(function*() {
    const orgs = yield* Orgs
    const config = yield* GatewayConfig
    const audited = yield* makeAudited
    return handlers
      .handleRaw("create", () =>
        answer(Effect.gen(function*() {
          yield* requireOwner
          const input = yield* decodeInput(CreateOrg)(yield* readJsonBody)
          return yield* audited(
            { action: "org.create", targetKind: "org", targetId: (org) => org.id, orgId: (org) => org.id },
            orgs.create(input.name)
          )
        })))
      .handle("list", () =>
        answer(Effect.gen(function*() {
          const visible = orgsOf(yield* Effect.service(CurrentPrincipal))
          const all = yield* orgs.list
          return list(visible === undefined ? all : all.filter((org) => visible.has(org.id)))
        })))
      .handle("get", ({ params }) => answer(Effect.andThen(requireRead(params.org_id), orgs.get(params.org_id))))
      .handleRaw("update", ({ params }) =>
        answer(Effect.gen(function*() {
          yield* requireAdmin(params.org_id)
          const changes = yield* parseOrgUpdate(yield* readJsonBody).pipe(
            Effect.provideService(GatewayConfig, config)
          )
          return yield* audited({
            action: "org.update",
            targetKind: "org",
            targetId: params.org_id,
            orgId: params.org_id,
            before: orgs.get(params.org_id)
          }, orgs.update(params.org_id, changes))
        })))
  }))

const KeysLive = HttpApiBuilder.group(AdminApi, "keys", (handlers) =>
  Effect.gen(function*() {
    const keys = yield* ApiKeys
    const tools = yield* ToolCatalogue
    const audited = yield* makeAudited
    const allowedTools = (ids: ReadonlyArray<string> | null | undefined, orgId: string) =>
      checkAllowedTools(ids, tools.forOrg(orgId))
    const keyChange = (action: string, keyId: string) => ({
      action,
      targetKind: "key",
      targetId: keyId,
      orgId: (key: ApiKeyInfo) => key.org_id,
      before: keys.get(keyId)
    })
    /** The key's org, which the caller must administer to change the key. */
    const keyOrg = (keyId: string) =>
      Effect.flatMap(keys.get(keyId), (key) => Effect.as(requireAdmin(key.org_id), key.org_id))
    return handlers
      .handleRaw("create", ({ params }) =>
        answer(Effect.gen(function*() {
          yield* requireAdmin(params.org_id)
          const input = yield* decodeInput(CreateKey)(yield* readJsonBody)
          const expiresAt = yield* parseExpiry(input.expires_at)
          const allowedSvcToolIds = (yield* allowedTools(input.allowed_svc_tool_ids, params.org_id)) ?? null
          const made = { action: "key.create", targetKind: "key", targetId: (key: ApiKeyInfo) => key.id }
          return yield* audited(
            { ...made, orgId: params.org_id },
            keys.create(params.org_id, {
              name: input.name,
              ...(input.description === undefined ? {} : { description: input.description }),
              expiresAt,
              allowedSvcToolIds,
              ...(input.limits === undefined ? {} : { limits: input.limits })
            })
          )
        })))
      .handle("list", ({ params }) =>
        answer(Effect.andThen(requireRead(params.org_id), Effect.map(keys.list(params.org_id), list))))
      .handle("get", ({ params }) =>
        answer(Effect.tap(keys.get(params.key_id), (key) => requireRead(key.org_id))))
      .handleRaw("update", ({ params }) =>
        answer(Effect.gen(function*() {
          // the input's shape is checked first, as for every caller; then whether the caller may change this
          // key; then the tools it names, among its org's (which only its admins may learn of)
          const input = yield* decodeInput(UpdateKey)(yield* readJsonBody)
          const expiresAt = input.expires_at === undefined ? undefined : yield* parseExpiry(input.expires_at)
          const orgId = yield* keyOrg(params.key_id)
          const allowed = yield* allowedTools(input.allowed_svc_tool_ids, orgId)
          return yield* audited(
            keyChange("key.update", params.key_id),
            keys.update(params.key_id, {
              ...(input.name === undefined ? {} : { name: input.name }),
              ...(input.description === undefined ? {} : { description: input.description }),
              ...(expiresAt === undefined ? {} : { expiresAt }),
              ...(allowed === undefined ? {} : { allowedSvcToolIds: allowed }),
              ...(input.limits === undefined ? {} : { limits: input.limits })
            })
          )
        })))
      .handle("revoke", ({ params }) =>
        answer(Effect.andThen(
          keyOrg(params.key_id),
          audited(keyChange("key.revoke", params.key_id), keys.revoke(params.key_id))
        )))
  }))

const SvcToolsLive = HttpApiBuilder.group(AdminApi, "svcTools", (handlers) =>
  Effect.gen(function*() {
    const tools = yield* ToolCatalogue
    const policy = yield* Policy
    const audited = yield* makeAudited
    return handlers
      .handle("catalogue", () =>
        Effect.succeed(list(
          tools.global().all.map((tool) => ({
            id: tool.id,
            description: tool.description,
            parameters: tool.jsonSchema
          }))
        )))
      .handle("orgTools", ({ params }) =>
        answer(Effect.andThen(requireRead(params.org_id), Effect.map(policy.orgTools(params.org_id), list))))
      .handleRaw("set", ({ params }) =>
        answer(Effect.gen(function*() {
          yield* requireAdmin(params.org_id)
          const input = yield* decodeInput(SetOrgTool)(yield* readJsonBody)
          return yield* audited(
            {
              action: "svc_tool.set",
              targetKind: "svc_tool",
              targetId: params.tool_id,
              orgId: params.org_id,
              before: Effect.map(policy.orgTools(params.org_id), (tools) =>
                tools.find((t) =>
                  t.id === params.tool_id
                ))
            },
            policy.setOrgTool(params.org_id, params.tool_id, {
              activated: input.activated,
              ...(input.hydrate_org === undefined ? {} : { hydrateOrg: input.hydrate_org }),
              ...(input.hydrate_key_ids === undefined ? {} : { hydrateKeyIds: input.hydrate_key_ids })
            })
          )
        })))
  }))

const RequestsLive = HttpApiBuilder.group(AdminApi, "requests", (handlers) =>
  Effect.gen(function*() {
    const orgs = yield* Orgs
    const queries = yield* RequestQueries
    // the query first, then the org: an unknown org is a 404 rather than an empty list
    const rawQuery = HttpServerRequest.ParsedSearchParams
    /** `orgId` null: every org's. */
    const spendOf = (orgId: string | null) =>
      Effect.gen(function*() {
        yield* orgId === null ? requireOwner : requireRead(orgId)
        const { filter, groupBy } = yield* parseAnalyticsParams(yield* rawQuery)
        if (orgId !== null) yield* orgs.get(orgId)
        return yield* queries.spend(orgId, groupBy, filter)
      })
    const csvOf = (report: SpendReport) =>
      HttpServerResponse.text(spendCsv(report), {
        contentType: "text/csv; charset=utf-8",
        headers: { "content-disposition": `attachment; filename="spend-${report.group_by}.csv"` }
      })
    return handlers
      .handle("list", ({ params }) =>
        answer(Effect.gen(function*() {
          yield* requireRead(params.org_id)
          const { filter, page } = yield* parseListParams(yield* rawQuery)
          yield* orgs.get(params.org_id)
          return yield* queries.list(params.org_id, filter, page)
        })))
      .handle("get", ({ params }) =>
        answer(Effect.gen(function*() {
          yield* requireRead(params.org_id)
          yield* orgs.get(params.org_id)
          return yield* queries.get(params.org_id, params.request_id)
        })))
      .handle("analytics", ({ params }) =>
        answer(Effect.gen(function*() {
          yield* requireRead(params.org_id)
          const { filter, groupBy } = yield* parseAnalyticsParams(yield* rawQuery)
          yield* orgs.get(params.org_id)
          return yield* queries.analytics(params.org_id, groupBy, filter)
        })))
      .handle("spend", ({ params }) => answer(spendOf(params.org_id)))
      .handle("spendCsv", ({ params }) => answer(Effect.map(spendOf(params.org_id), csvOf)))
      .handle("sessions", ({ params }) =>
        answer(Effect.gen(function*() {
          yield* requireRead(params.org_id)
          const { filter, limit } = yield* parseSessionsParams(yield* rawQuery)
          yield* orgs.get(params.org_id)
          return yield* queries.sessions(params.org_id, filter, limit)
        })))
      .handle("session", ({ params }) =>
        answer(Effect.gen(function*() {
          yield* requireRead(params.org_id)
          yield* orgs.get(params.org_id)
          return yield* queries.session(params.org_id, params.session_id)
        })))
      .handle("analyticsAll", () =>
        answer(Effect.gen(function*() {
          yield* requireOwner
          const { filter, groupBy } = yield* parseAnalyticsParams(yield* rawQuery)
          return yield* queries.analytics(null, groupBy, filter)
        })))
      .handle("spendAll", () => answer(spendOf(null)))
      .handle("spendAllCsv", () => answer(Effect.map(spendOf(null), csvOf)))
  }))

const CircuitsLive = HttpApiBuilder.group(AdminApi, "circuits", (handlers) =>
  Effect.gen(function*() {
    const breaker = yield* TargetBreaker
    return handlers.handle(
      "list",
      () => answer(Effect.andThen(requireOwner, Effect.sync(() => list(breaker.states()))))
    )
  }))

/** Every group's handlers, over the services they read. */
export const AdminHandlers = Layer.mergeAll(OrgsLive, KeysLive, SvcToolsLive, RequestsLive, CircuitsLive)
