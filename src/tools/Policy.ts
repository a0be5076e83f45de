/**
 * Which shared tools a request gets. Per organization, a tool is activated or not, and hydrated for the
 * whole organization and/or for chosen keys; per key, an allow-list (absent: every activated tool). The
 * rules, as the spec states them:
 * - a listed id must be installed, activated for the org and allowed for the key, or the request fails
 *   with `invalid_svc_tool_ids` naming every bad id;
 * - tools hydrated for the org or for this key are injected without being listed, if activated and
 *   allowed for the key; listed and hydrated tools are injected once each;
 * - an activated tool that is not hydrated for the caller is used only when listed;
 * - with `tool_choice: "none"` nothing is injected.
 * Org settings are cached like keys (`GATEWAY_KEY_CACHE_TTL`) and dropped at once on a local change;
 * in a store outage they are answered as last seen, within `GATEWAY_KEY_STALE_MAX`, as keys are.
 */
import { Context, Effect, Layer } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { GatewayConfig } from "../Config.ts"
import { AdminError } from "../kernel/AdminError.ts"
import type { Caller } from "../kernel/Caller.ts"
import type { ToolChoice } from "../kernel/ChatCall.ts"
import { InvalidSvcToolIds, RequestError } from "../kernel/RequestError.ts"
import { makeStaleCache } from "../kernel/StaleCache.ts"
import { ApiKeys } from "../keys/ApiKeys.ts"
import { Orgs } from "../orgs/Orgs.ts"
import { ChangeFeed } from "../store/ChangeFeed.ts"
import { fromJson, toBool } from "../store/Rows.ts"
import { json, now } from "../store/SqlParts.ts"
import { hotSpan } from "../Tracing.ts"
import type { SvcTool } from "./SvcTool.ts"
import { ToolCatalogue } from "./ToolCatalogue.ts"

/** One tool's settings in one org, as the admin API shows them. */
export interface OrgToolSetting {
  readonly id: string
  readonly activated: boolean
  readonly hydrate_org: boolean
  readonly hydrate_key_ids: ReadonlyArray<string>
}

export interface OrgToolChange {
  readonly activated: boolean
  readonly hydrateOrg?: boolean
  readonly hydrateKeyIds?: ReadonlyArray<string>
}

interface SettingRow {
  readonly tool_id: string
  readonly activated: boolean | number
  readonly hydrate_org: boolean | number
  /** JSON: parsed (PostgreSQL) or text (SQLite). */
  readonly hydrate_key_ids: ReadonlyArray<string> | string
}

const inactive = (id: string): OrgToolSetting => ({ id, activated: false, hydrate_org: false, hydrate_key_ids: [] })

/** What a request asks of the shared tools. */
export interface ToolRequest {
  /** `svc_tool_ids` as the client listed them. */
  readonly listed: ReadonlyArray<string>
  readonly toolChoice: ToolChoice | undefined
  /** Ids a continued turn offered before, kept while still allowed. */
  readonly carried?: ReadonlyArray<string> | undefined
}

/** The rules above, as a pure function over one org's settings. */
export const selectTools = (
  registry: { readonly get: (id: string) => SvcTool | undefined; readonly all: ReadonlyArray<SvcTool> },
  settings: ReadonlyMap<string, OrgToolSetting>,
  caller: Caller,
  request: ToolRequest
): { readonly tools: ReadonlyArray<SvcTool> } | { readonly invalid: InvalidSvcToolIds["invalid"] } => {
  const { listed, toolChoice } = request
  const carried = request.carried ?? []
  const allowedForKey = (id: string) => caller.allowedSvcToolIds === null || caller.allowedSvcToolIds.includes(id)
  const invalid: Array<{ id: string; why: string }> = []
  for (const id of new Set(listed)) {
    if (registry.get(id) === undefined) invalid.push({ id, why: "not installed" })
    else if (settings.get(id)?.activated !== true) invalid.push({ id, why: "not activated for this organization" })
    else if (!allowedForKey(id)) invalid.push({ id, why: "not allowed for this API key" })
  }
  if (invalid.length > 0) return { invalid }
  if (toolChoice === "none") return { tools: [] }
  const chosen = new Set(listed)
  // tools a continued turn offered before: kept while still allowed, dropped silently otherwise
  for (const id of carried) {
    if (registry.get(id) !== undefined && settings.get(id)?.activated === true && allowedForKey(id)) chosen.add(id)
  }
  for (const setting of settings.values()) {
    const hydrated = setting.hydrate_org || setting.hydrate_key_ids.includes(caller.keyId)
    if (setting.activated && hydrated && allowedForKey(setting.id) && registry.get(setting.id) !== undefined) {
      chosen.add(setting.id)
    }
  }
  // catalogue order, so the upstream sees the same tool list for the same settings
  return { tools: registry.all.filter((tool) => chosen.has(tool.id)) }
}

export class Policy extends Context.Service<Policy, {
  /** The shared tools to inject for this request, or `invalid_svc_tool_ids`. */
  readonly toolsFor: (
    caller: Caller,
    request: ToolRequest
  ) => Effect.Effect<ReadonlyArray<SvcTool>, RequestError | SqlError.SqlError>
  /**
   * Every tool the caller may use (activated for her org, allowed for her key), hydrated or not: what
   * the gateway's MCP server lists and runs for her.
   */
  readonly usableBy: (caller: Caller) => Effect.Effect<ReadonlyArray<SvcTool>, SqlError.SqlError>
  /** Every installed tool with this org's settings (inactive when never set). */
  readonly orgTools: (orgId: string) => Effect.Effect<ReadonlyArray<OrgToolSetting>, SqlError.SqlError | AdminError>
  readonly setOrgTool: (
    orgId: string,
    toolId: string,
    change: OrgToolChange
  ) => Effect.Effect<OrgToolSetting, SqlError.SqlError | AdminError | RequestError>
}>()("svc-gateway/Policy") {
  static readonly layer = Layer.effect(
    Policy,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const catalogue = yield* ToolCatalogue
      const orgs = yield* Orgs
      const keys = yield* ApiKeys
      const config = yield* GatewayConfig
      const cache = yield* makeStaleCache<string, ReadonlyMap<string, OrgToolSetting>>({
        ttl: config.keyCacheTtl,
        staleMax: config.keyStaleMax
      })

      const load = (orgId: string) =>
        sql<SettingRow>`SELECT tool_id, activated, hydrate_org, hydrate_key_ids FROM org_svc_tools
        WHERE org_id = ${orgId}`.pipe(
          Effect.map((rows) =>
            new Map(rows.map((row) => [row.tool_id, {
              id: row.tool_id,
              activated: toBool(row.activated),
              hydrate_org: toBool(row.hydrate_org),
              hydrate_key_ids: fromJson(row.hydrate_key_ids)
            }]))
          )
        )

      const feed = yield* ChangeFeed
      feed.listen((change) => {
        if (change.startsWith("org:")) cache.delete(change.slice(4))
      })

      // the store down: the org's settings as last seen, within the stale limit (as keys, see Auth.ts)
      const settingsOf = (orgId: string): Effect.Effect<ReadonlyMap<string, OrgToolSetting>, SqlError.SqlError> => {
        const hit = cache.fresh(orgId)
        return hit !== undefined ? Effect.succeed(hit) : cache.load(orgId, load(orgId))
      }

      const span = hotSpan("Policy.toolsFor")
      // plain code over the cached settings, not a generator: this runs on every request
      const toolsFor = (caller: Caller, request: ToolRequest) => {
        const select = (settings: ReadonlyMap<string, OrgToolSetting>) => {
          const selected = selectTools(catalogue.forOrg(caller.orgId), settings, caller, request)
          return "invalid" in selected
            ? Effect.fail(new RequestError({ reason: new InvalidSvcToolIds({ invalid: selected.invalid }) }))
            : Effect.succeed(selected.tools)
        }
        return span(Effect.suspend(() => Effect.flatMap(settingsOf(caller.orgId), select)))
      }

      const usableBy = (caller: Caller) =>
        Effect.map(
          settingsOf(caller.orgId),
          (settings) =>
            catalogue.forOrg(caller.orgId).all.filter((tool) =>
              settings.get(tool.id)?.activated === true &&
              (caller.allowedSvcToolIds === null || caller.allowedSvcToolIds.includes(tool.id))
            )
        )

      const orgTools = Effect.fn("Policy.orgTools")(function*(orgId: string) {
        yield* orgs.get(orgId)
        const settings = yield* load(orgId)
        return catalogue.forOrg(orgId).all.map((tool) => settings.get(tool.id) ?? inactive(tool.id))
      })

      const setOrgTool = Effect.fn("Policy.setOrgTool")(
        function*(orgId: string, toolId: string, change: OrgToolChange) {
          yield* orgs.get(orgId)
          if (catalogue.forOrg(orgId).get(toolId) === undefined) {
            return yield* AdminError.notFound("shared tool", toolId)
          }
          const current = (yield* load(orgId)).get(toolId) ?? inactive(toolId)
          const hydrateKeyIds = [...new Set(change.hydrateKeyIds ?? current.hydrate_key_ids)]
          if (change.hydrateKeyIds !== undefined) {
            const orgKeys = new Set((yield* keys.list(orgId)).map((key) => key.id))
            const foreign = hydrateKeyIds.filter((id) => !orgKeys.has(id))
            if (foreign.length > 0) {
              return yield* RequestError.invalidField(
                "hydrate_key_ids",
                `Invalid value for 'hydrate_key_ids': no API key of this organization has the id ${
                  foreign.map((id) => `'${id}'`).join(", ")
                }.`
              )
            }
          }
          const next: OrgToolSetting = {
            id: toolId,
            activated: change.activated,
            hydrate_org: change.hydrateOrg ?? current.hydrate_org,
            hydrate_key_ids: hydrateKeyIds
          }
          yield* sql`INSERT INTO org_svc_tools (org_id, tool_id, activated, hydrate_org, hydrate_key_ids)
        VALUES (${orgId}, ${toolId}, ${next.activated}, ${next.hydrate_org}, ${json(sql, next.hydrate_key_ids)})
        ON CONFLICT (org_id, tool_id) DO UPDATE SET activated = EXCLUDED.activated,
          hydrate_org = EXCLUDED.hydrate_org, hydrate_key_ids = EXCLUDED.hydrate_key_ids, updated_at = ${now(sql)}`
          cache.delete(orgId)
          yield* feed.publish(`org:${orgId}`)
          return next
        }
      )

      return Policy.of({ toolsFor, usableBy, orgTools, setOrgTool })
    })
  ).pipe(Layer.provideMerge(ToolCatalogue.layer))
}
