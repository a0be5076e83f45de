/**
 * The admin operations the command line runs (organizations, keys, shared tools, the request log and its
 * analytics), behind one service with two ways to the data: `layerStore` opens the store itself (the
 * server's repositories, shared-tool policy and catalogue, request-log queries, settings from the
 * environment) and `layerHttp` goes through a running gateway's admin API. Both take
 * the admin API's input, validate it the same way and fail with the same messages, so a command never
 * knows which one it talks to.
 */
import { type Config, Console, Context, Effect, Layer, Option, Schema } from "effect"
import type { SqlError } from "effect/sql"
import { existsSync } from "node:fs"
import { resolve } from "node:path"
import { checkAllowedTools, LimitsInput, Name, parseExpiry, parseOrgUpdate } from "../admin/AdminInput.ts"
import { GatewayConfig } from "../Config.ts"
import { describeError } from "../http/ErrorResponse.ts"
import type { AdminError } from "../kernel/AdminError.ts"
import { decodeInput } from "../kernel/DecodeInput.ts"
import type { RequestError } from "../kernel/RequestError.ts"
import { ApiKeys } from "../keys/ApiKeys.ts"
import { RequestQueries } from "../logs/RequestQueries.ts"
import { parseAnalyticsParams, parseListParams } from "../logs/RequestQueryParams.ts"
import { Orgs } from "../orgs/Orgs.ts"
import { DatabaseLive } from "../store/Database.ts"
import { type DataDirLockError, DataDirLockLive, lockedDataDir } from "../store/DataDirLock.ts"
import { Policy } from "../tools/Policy.ts"
import { ToolRegistry } from "../tools/ToolRegistry.ts"
import { AdminClientError } from "./AdminClientError.ts"
import type { AdminClientShape, KeyInput, KeyUpdate, OrgUpdateBody, SvcToolInfo } from "./AdminClientShape.ts"
import { type HttpOptions, makeHttpAdmin } from "./AdminHttp.ts"
import { analyticsParams, listParams, type RequestFilterInput, type RequestListInput } from "./LogQuery.ts"

// the admin API's input checks, so the store path refuses exactly what the API refuses, in its words
const decodeName = decodeInput(Schema.Struct({ name: Name }))
const decodeRename = decodeInput(Schema.Struct({ name: Schema.optionalKey(Name) }))

/** Store failures in the admin API's words: the same message whichever way the CLI went. */
const fromStore = (error: RequestError | AdminError | SqlError.SqlError): AdminClientError => {
  const message = describeError(error).body.error.message
  switch (error._tag) {
    case "RequestError":
      return AdminClientError.invalidInput(message)
    case "AdminError":
      return error.reason._tag === "NotFound"
        ? AdminClientError.notFound(message)
        : AdminClientError.refused(message)
    case "SqlError":
      // the API hides store details from clients; the operator at the CLI needs them
      return AdminClientError.unavailable(`The store failed: ${error.message}`)
  }
}

/** The CLI's words for a held lock: the way out it offers first is `--url`. */
const lockedMessage = (error: DataDirLockError, pid: number, port: number) =>
  [
    `The data folder ${error.dataDir} is in use by another svc-gateway process (pid ${pid}), probably the ` +
    `running gateway; its embedded store can be opened by one process at a time.`,
    `Go through the gateway's admin API instead: pass --url http://127.0.0.1:${port} --admin-token <token> ` +
    `(or set GATEWAY_URL and GATEWAY_ADMIN_TOKEN), or stop the server first.`,
    `If no svc-gateway process is running, delete ${error.lockFile}.`
  ].join("\n")

/** What `layerRepositories` needs, over a migrated store: as the server builds them, without `AdminAuth` (nor the log writer). */
const storeServices = Layer.mergeAll(Policy.layer, RequestQueries.layer).pipe(
  Layer.provideMerge(ToolRegistry.layer),
  Layer.provideMerge(ApiKeys.layer),
  Layer.provideMerge(Orgs.layer)
)

/** What the CLI says when the embedded store it opens did not exist: where it looked, and where to look. */
export const newStoreNote = (dataDir: string): string =>
  `Note: there was no gateway store at ${resolve(dataDir)}, so the CLI made a new, empty one there. It opens ` +
  `the store of DATABASE_URL, else the folder GATEWAY_DATA_DIR names (default ./.data, in the current folder). ` +
  `To see your gateway's, run the CLI in the folder you ran npm start in, set GATEWAY_DATA_DIR (or DATABASE_URL) ` +
  `as the gateway has it, or go through the running gateway: --url http://127.0.0.1:8080 with GATEWAY_ADMIN_TOKEN.`

export class AdminClient extends Context.Service<AdminClient, AdminClientShape>()("svc-gateway/cli/AdminClient") {
  /** Over the repositories already in context: what `layerStore` uses, and what tests share across runs. */
  static readonly layerRepositories: Layer.Layer<
    AdminClient,
    never,
    Orgs | ApiKeys | Policy | ToolRegistry | RequestQueries
  > = Layer.effect(
    AdminClient,
    Effect.gen(function*() {
      const orgs = yield* Orgs
      const keys = yield* ApiKeys
      const policy = yield* Policy
      const registry = yield* ToolRegistry
      const queries = yield* RequestQueries
      const allowedTools = (ids: ReadonlyArray<string> | null | undefined) =>
        checkAllowedTools(ids).pipe(Effect.provideService(ToolRegistry, registry))

      const createOrg = Effect.fn("AdminClient.createOrg")(function*(name: string) {
        const input = yield* decodeName({ name })
        return yield* orgs.create(input.name)
      }, Effect.mapError(fromStore))

      const createKey = Effect.fn("AdminClient.createKey")(function*(orgId: string, input: KeyInput) {
        const { name } = yield* decodeName({ name: input.name })
        const expiresAt = yield* parseExpiry(input.expiresAt)
        const allowedSvcToolIds = (yield* allowedTools(input.allowedSvcToolIds)) ?? null
        return yield* keys.create(orgId, { name, expiresAt, allowedSvcToolIds })
      }, Effect.mapError(fromStore))

      // the checks in the order `PATCH /admin/v1/keys/{key_id}` runs them, so the first refusal is the same
      const updateKey = Effect.fn("AdminClient.updateKey")(function*(keyId: string, update: KeyUpdate) {
        const input = yield* decodeRename(update.name === undefined ? {} : { name: update.name })
        const allowed = yield* allowedTools(update.allowedSvcToolIds)
        return yield* keys.update(keyId, {
          ...(input.name === undefined ? {} : { name: input.name }),
          ...(update.expiresAt === undefined ? {} : { expiresAt: yield* parseExpiry(update.expiresAt) }),
          ...(allowed === undefined ? {} : { allowedSvcToolIds: allowed }),
          ...(update.limits === undefined ? {} : { limits: yield* decodeInput(LimitsInput)(update.limits) })
        })
      }, Effect.mapError(fromStore))

      // the request-log routes' steps in their order: the query first, then the org, so the first refusal is the same
      const updateOrg = Effect.fn("AdminClient.updateOrg")(function*(orgId: string, update: OrgUpdateBody) {
        return yield* orgs.update(orgId, yield* parseOrgUpdate(update))
      }, Effect.mapError(fromStore))

      const listRequests = Effect.fn("AdminClient.listRequests")(function*(orgId: string, input: RequestListInput) {
        const { filter, page } = yield* parseListParams(listParams(input))
        yield* orgs.get(orgId)
        return yield* queries.list(orgId, filter, page)
      }, Effect.mapError(fromStore))

      const getRequest = Effect.fn("AdminClient.getRequest")(function*(orgId: string, requestId: string) {
        yield* orgs.get(orgId)
        return yield* queries.get(orgId, requestId)
      }, Effect.mapError(fromStore))

      const analytics = Effect.fn("AdminClient.analytics")(function*(
        orgId: string,
        groupBy: string,
        input: RequestFilterInput
      ) {
        const params = yield* parseAnalyticsParams(analyticsParams(groupBy, input))
        yield* orgs.get(orgId)
        return yield* queries.analytics(orgId, params.groupBy, params.filter)
      }, Effect.mapError(fromStore))

      const catalogue: ReadonlyArray<SvcToolInfo> = registry.all.map((tool) => ({
        id: tool.id,
        description: tool.description,
        parameters: tool.jsonSchema
      }))

      return AdminClient.of({
        createOrg,
        listOrgs: orgs.list.pipe(Effect.mapError(fromStore)),
        createKey,
        listKeys: (orgId) => keys.list(orgId).pipe(Effect.mapError(fromStore)),
        revokeKey: (keyId) => keys.revoke(keyId).pipe(Effect.mapError(fromStore)),
        updateKey,
        listTools: Effect.succeed(catalogue),
        orgTools: (orgId) => policy.orgTools(orgId).pipe(Effect.mapError(fromStore)),
        setOrgTool: (orgId, toolId, change) =>
          policy.setOrgTool(orgId, toolId, change).pipe(Effect.mapError(fromStore)),
        updateOrg,
        listRequests,
        getRequest,
        analytics
      })
    })
  )

  /**
   * Opens the store the settings name, as the server does: the data folder's lock first (refused while
   * the gateway serves it), then the migrated database, then the repositories, the request-log queries and
   * the shared-tool policy over the installed catalogue. Only the repositories of the server's `StoreServices`: its `AdminAuth`
   * would create and print an admin token on a fresh store, which is the server's business (and would
   * spoil `--json` output).
   */
  static readonly layerStore: Layer.Layer<AdminClient, AdminClientError, GatewayConfig> = Layer.unwrap(
    Effect.gen(function*() {
      const config = yield* GatewayConfig
      // run from another folder, the CLI would show a new, empty store and nothing else: say so
      const onDisk = lockedDataDir(config)
      if (Option.isSome(onDisk) && !existsSync(onDisk.value)) yield* Console.error(newStoreNote(onDisk.value))
      const failWith = (error: AdminClientError) => Layer.effect(AdminClient, Effect.fail(error))
      return AdminClient.layerRepositories.pipe(
        Layer.provide(storeServices),
        Layer.provide(DatabaseLive),
        Layer.provide(DataDirLockLive),
        Layer.catchTag("DataDirLockError", (error) =>
          failWith(
            error.reason._tag === "LockHeld"
              ? AdminClientError.storeLocked(lockedMessage(error, error.reason.pid, config.port))
              : AdminClientError.unavailable(error.message)
          )),
        Layer.catchTag(
          ["SqlError", "MigrationError"],
          (error) => failWith(AdminClientError.unavailable(`Could not open the store: ${error.message}`))
        ),
        Layer.catchTag(
          "ToolRegistryError",
          (error) => failWith(AdminClientError.unavailable(`Could not load the shared tools: ${error.message}`))
        )
      )
    })
  )

  /** `layerStore` with its settings from `config`: the environment's (`GatewayConfig.layer`) or a test's. */
  static readonly layerStoreWith = (config: Layer.Layer<GatewayConfig, Config.ConfigError>) =>
    AdminClient.layerStore.pipe(
      Layer.provide(config),
      Layer.catchTag("ConfigError", (error) =>
        Layer.effect(
          AdminClient,
          Effect.fail(AdminClientError.invalidInput(`Invalid settings in the environment: ${error.message}`))
        ))
    )

  /** Through a running gateway's admin API (`<url>/admin/v1/...`) with the admin token. */
  static readonly layerHttp = (options: HttpOptions) => Layer.effect(AdminClient, makeHttpAdmin(options))
}
