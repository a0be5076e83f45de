/**
 * Runs the CLI in-process, as `main.ts` does, with its output captured: the store it uses without
 * `--url` is a layer the test picks (usually one over repositories the test keeps across runs, since a
 * `memory://` store built per run would forget everything), and the environment is an explicit record.
 */
import { NodeServices } from "@effect/platform-node"
import { ConfigProvider, Console, Effect, Layer } from "effect"
import type { SqlClient } from "effect/sql"
import { format } from "node:util"
import { AdminClient } from "../../src/cli/AdminClient.ts"
import type { AdminClientError } from "../../src/cli/AdminClientError.ts"
import { runCli } from "../../src/cli/Cli.ts"
import { LocalStore } from "../../src/cli/Connection.ts"
import { GatewayConfig } from "../../src/Config.ts"
import type { ApiKeys } from "../../src/keys/ApiKeys.ts"
import { RequestQueries } from "../../src/logs/RequestQueries.ts"
import type { Orgs } from "../../src/orgs/Orgs.ts"
import { Policy } from "../../src/tools/Policy.ts"
import type { ToolCatalogue } from "../../src/tools/ToolCatalogue.ts"
import { ToolRegistry } from "../../src/tools/ToolRegistry.ts"
import { RepositoriesLive } from "../utils/TestStore.ts"

export interface CliResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

export type StoreLayer = Layer.Layer<AdminClient, AdminClientError>

type StoreServices = Orgs | ApiKeys | Policy | ToolCatalogue | RequestQueries | GatewayConfig | SqlClient.SqlClient

/**
 * What the CLI's store path runs on, over the shared test store: the repositories, and the shared-tool
 * policy over the installed plugins (the catalogue `startGateway()` serves too), and the request-log queries.
 */
export const CliStoreLive = Layer.mergeAll(Policy.layer, RequestQueries.layer).pipe(
  Layer.provideMerge(ToolRegistry.layer),
  Layer.provideMerge(RepositoriesLive)
)

/** The CLI's local store over the services in the current context (a store shared by the test block). */
export const sharedStore: Effect.Effect<StoreLayer, never, StoreServices> = Effect.map(
  Effect.context<StoreServices>(),
  (context) => AdminClient.layerRepositories.pipe(Layer.provide(Layer.succeedContext(context)))
)

/** A store that must never be opened: usage errors and help are answered before any store is touched. */
export const untouchableStore: StoreLayer = Layer.effect(AdminClient, Effect.die("the store was opened"))

export const runArgs = (
  args: ReadonlyArray<string>,
  options: { readonly store: StoreLayer; readonly env?: Record<string, string> }
): Effect.Effect<CliResult> =>
  Effect.gen(function*() {
    const stdout: Array<string> = []
    const stderr: Array<string> = []
    const captured: Console.Console = Object.assign(Object.create(globalThis.console) as Console.Console, {
      log: (...values: ReadonlyArray<unknown>) => void stdout.push(format(...values)),
      info: (...values: ReadonlyArray<unknown>) => void stdout.push(format(...values)),
      error: (...values: ReadonlyArray<unknown>) => void stderr.push(format(...values)),
      warn: (...values: ReadonlyArray<unknown>) => void stderr.push(format(...values))
    })
    const code = yield* runCli(args).pipe(
      Effect.provideService(Console.Console, captured),
      Effect.provide([
        NodeServices.layer,
        Layer.succeed(LocalStore, options.store),
        ConfigProvider.layer(ConfigProvider.fromEnvRecord(options.env ?? {}))
      ])
    )
    return { code, stdout: stdout.join("\n"), stderr: stderr.join("\n") }
  })

/** Parses stdout as JSON; a failure names the output, which is what one wants to see then. */
export const stdoutJson = (result: CliResult): unknown => {
  try {
    return JSON.parse(result.stdout)
  } catch {
    throw new Error(`stdout is not JSON (exit ${result.code}):\n${result.stdout}\nstderr:\n${result.stderr}`)
  }
}
