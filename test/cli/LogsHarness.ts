/**
 * A real gateway (every production layer, `HttpApp` over `AppServices`, on 127.0.0.1 and a random port)
 * whose store the test can also reach: the CLI's store path runs on the gateway's own repositories and
 * request-log queries, and request-log rows are seeded straight into its store. So one command can run
 * both ways, on the same data, and the two answers must be identical, byte for byte.
 *
 * `startGateway()` serves the same app, but keeps its store to itself (the in-memory embedded store by default),
 * which leaves no way to seed the log rows these tests need.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { assert } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, ManagedRuntime, Schema } from "effect"
import { HttpServer } from "effect/http"
import type { SqlClient } from "effect/sql"
import { createServer } from "node:http"
import { Org as OrgWire } from "../../src/admin/AdminResources.ts"
import { AppServices, HttpApp } from "../../src/App.ts"
import { AdminClient } from "../../src/cli/AdminClient.ts"
import { GatewayConfig } from "../../src/Config.ts"
import type { ApiKeys } from "../../src/keys/ApiKeys.ts"
import type { RequestQueries } from "../../src/logs/RequestQueries.ts"
import type { Orgs } from "../../src/orgs/Orgs.ts"
import type { Policy } from "../../src/tools/Policy.ts"
import type { ToolCatalogue } from "../../src/tools/ToolCatalogue.ts"
import { insertRows, type SeedRow } from "../logs/QueriesSeed.ts"
import { ADMIN_TOKEN, testEnv } from "../utils/TestGateway.ts"
import { unique } from "../utils/TestStore.ts"
import { type CliResult, runArgs, stdoutJson, type StoreLayer, untouchableStore } from "./CliHarness.ts"

export interface LogsGateway {
  readonly url: string
  /** The CLI's store path over the gateway's own services. */
  readonly store: StoreLayer
  /** Inserts request-log rows for `orgId` into the gateway's store; their ids are `<orgId>-<suffix>`. */
  readonly seed: (orgId: string, rows: ReadonlyArray<SeedRow>) => Promise<void>
  /** The admin API's own answer to a GET, pretty-printed as `--json` prints it. */
  readonly adminText: (path: string) => Promise<string>
  readonly close: () => Promise<void>
}

export const startLogsGateway = async (): Promise<LogsGateway> => {
  const settings = testEnv()
  const layer = HttpApp.pipe(
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
    Layer.provideMerge(AppServices),
    Layer.provideMerge(GatewayConfig.layerFrom(settings)),
    Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord(settings)))
  )
  const runtime = ManagedRuntime.make(layer)
  const address = await runtime.runPromise(Effect.map(Effect.service(HttpServer.HttpServer), (s) => s.address))
  if (address._tag === "UnixPathAddress") throw new Error("expected a TCP address")
  const url = `http://127.0.0.1:${address.port}`
  const context = await runtime.runPromise(
    Effect.context<Orgs | ApiKeys | Policy | ToolCatalogue | RequestQueries | GatewayConfig | SqlClient.SqlClient>()
  )

  const adminText = async (path: string) => {
    const response = await fetch(`${url}/admin/v1${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    const text = await response.text()
    if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}: ${text}`)
    return JSON.stringify(JSON.parse(text), null, 2)
  }

  return {
    url,
    store: AdminClient.layerRepositories.pipe(Layer.provide(Layer.succeedContext(context))),
    seed: (orgId, rows) => runtime.runPromise(insertRows(orgId, rows)),
    adminText,
    close: () => runtime.dispose()
  }
}

/** One command line on the gateway's store (no `--url`). */
export const onStore = (gw: LogsGateway, args: ReadonlyArray<string>): Effect.Effect<CliResult> =>
  runArgs(args, { store: gw.store })

/** The same command line through the gateway's admin API; the store is never opened. */
export const viaUrl = (gw: LogsGateway, args: ReadonlyArray<string>): Effect.Effect<CliResult> =>
  runArgs(["--url", gw.url, "--admin-token", ADMIN_TOKEN, ...args], { store: untouchableStore })

/** Runs `args` on the store and through `--url`: the two must agree exactly. The store's run is returned. */
export const bothWays = (gw: LogsGateway, args: ReadonlyArray<string>): Effect.Effect<CliResult> =>
  Effect.gen(function*() {
    const local = yield* onStore(gw, args)
    const remote = yield* viaUrl(gw, args)
    assert.deepStrictEqual(remote, local, `store and --url differ for: ${args.join(" ")}`)
    return local
  })

/** A run that succeeded with nothing on stderr. */
export const ok = (result: CliResult): CliResult => {
  assert.strictEqual(result.code, 0, result.stderr)
  assert.strictEqual(result.stderr, "")
  return result
}

export const decode = <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S, value: unknown) =>
  Schema.decodeUnknownSync(schema)(value)

/** A new org (uniquely named) through the CLI on the gateway's store; its id. */
export const newOrgIn = (gw: LogsGateway, label: string): Effect.Effect<string> =>
  Effect.map(
    onStore(gw, ["orgs", "create", "--name", unique(label), "--json"]),
    (result) => decode(OrgWire, stdoutJson(ok(result))).id
  )
