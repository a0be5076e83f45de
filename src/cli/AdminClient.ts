/**
 * The admin operations the command line runs (organizations, keys, shared tools, the request log and its
 * analytics), behind one service with two ways to the data: `layerStore` opens the store itself and runs
 * the admin API's own handlers in process over it, and `layerHttp` goes through a running gateway's
 * admin API. Both are the client derived from `AdminApi`, so they take the same input, check it in the
 * same code and fail with the same messages: a command never knows which one it talks to.
 */
import { NodeHttpPlatform, NodeServices } from "@effect/platform-node"
import { type Config, Console, Context, Effect, Layer, Option } from "effect"
import { Etag, HttpRouter } from "effect/http"
import { HttpApiTest } from "effect/http-api"
import type { SqlClient } from "effect/sql"
import { existsSync } from "node:fs"
import { resolve } from "node:path"
import { AdminApi } from "../admin/AdminApi.ts"
import { Audit } from "../audit/Audit.ts"
import { GatewayConfig } from "../Config.ts"
import { TargetBreaker } from "../core/TargetBreaker.ts"
import { AdminAuthorizationTrusted, AdminFailuresLive, adminHandlers } from "../http/AdminApiLive.ts"
import { AuditHandlers } from "../http/AdminAuditHandlers.ts"
import { UsersHandlers } from "../http/AdminUsersHandlers.ts"
import { ApiKeys } from "../keys/ApiKeys.ts"
import { RequestQueries } from "../logs/RequestQueries.ts"
import { Orgs } from "../orgs/Orgs.ts"
import { DatabaseLive } from "../store/Database.ts"
import { type DataDirLockError, DataDirLockLive, lockedDataDir } from "../store/DataDirLock.ts"
import { Policy } from "../tools/Policy.ts"
import { ToolCatalogue } from "../tools/ToolCatalogue.ts"
import { ToolRegistry } from "../tools/ToolRegistry.ts"
import { Users } from "../users/Users.ts"
import { AdminClientError } from "./AdminClientError.ts"
import { type AdminClientShape, adminShape, declaredFailure, type Invoke, type Wording } from "./AdminClientShape.ts"
import { type HttpOptions, makeHttpAdmin } from "./AdminHttp.ts"

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

/**
 * The circuits live in a serving instance's memory; the CLI on the store has none to show (with --url
 * it asks the gateway).
 */
const NoCircuits = Layer.succeed(TargetBreaker, TargetBreaker.off)

/** `effect` without the router its context may hold. */
const withoutRouter = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.updateContext(
    effect,
    (context: Context.Context<R>) => Context.omit(HttpRouter.HttpRouter)(context) as Context.Context<R>
  )

const localWording: Wording = {
  refusedToken: "The admin token was refused.",
  failed: (_status, message) => `The store failed: ${message}`
}

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
    Orgs | ApiKeys | Policy | ToolCatalogue | RequestQueries | GatewayConfig | SqlClient.SqlClient
  > = Layer.effect(
    AdminClient,
    Effect.gen(function*() {
      // `HttpApiTest` runs the server's router in memory: the same decoding, handlers and encoding. A
      // router in context (a test running the gateway in this process) would receive the routes instead.
      const client = yield* HttpApiTest.groups(AdminApi, [
        "orgs",
        "keys",
        "svcTools",
        "requests",
        "circuits",
        "users",
        "audit"
      ]).pipe(
        withoutRouter
      )
      const invoke: Invoke = (call) =>
        call(client).pipe(
          Effect.mapError((error) =>
            declaredFailure(error, localWording) ??
              AdminClientError.unavailable(`The admin API failed in process: ${String(error)}`)
          )
        )
      // the store alone cannot reach an MCP server: the running gateway does
      const needsGateway = Effect.fail(
        AdminClientError.invalidInput(
          "MCP servers are reached by the running gateway: use --url (or GATEWAY_URL) with --admin-token."
        )
      )
      return {
        ...adminShape(invoke),
        listMcpServers: () => needsGateway,
        addMcpServer: () => needsGateway,
        refreshMcpServer: () => needsGateway,
        removeMcpServer: () => needsGateway
      }
    })
  ).pipe(
    Layer.provide(Layer.mergeAll(
      adminHandlers(AdminAuthorizationTrusted),
      Layer.mergeAll(UsersHandlers, AuditHandlers).pipe(
        Layer.provide(Layer.mergeAll(AdminAuthorizationTrusted, AdminFailuresLive))
      )
    )),
    // changes made here are audited like the API's, as the CLI's
    Layer.provide(Layer.mergeAll(Audit.layerRecords, Users.layer)),
    Layer.provide(Layer.mergeAll(NoCircuits, NodeServices.layer, NodeHttpPlatform.layer, Etag.layer))
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
