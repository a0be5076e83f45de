/** Starts the gateway: settings from the environment, the store, the routes, a Node HTTP server. */
// must run before any schema is built: decoding request bodies is on the hot path
import "effect/schema/SchemaJITCompiler/enable"
import { NodeRuntime } from "@effect/platform-node"
import { Console, Effect, Layer, Runtime } from "effect"
import { HttpServer } from "effect/http"
import { AppServices, HttpApp, NodeServerLive } from "./App.ts"
import { bootstrap } from "./Bootstrap.ts"
import { GatewayConfig } from "./Config.ts"
import { TracingLive } from "./observability/TracingLayer.ts"
import { DataDirLockLive } from "./store/DataDirLock.ts"
import { isPrimaryOfWorkers, superviseWorkers, workersWanted } from "./Workers.ts"

/** Runs once the server listens, so what it prints is true when it is read. */
const Announce = Layer.effectDiscard(Effect.gen(function*() {
  yield* bootstrap
  const { address } = yield* HttpServer.HttpServer
  const { host } = yield* GatewayConfig
  const where = address._tag === "UnixPathAddress" ? address.path : `http://${host}:${address.port}`
  yield* Console.log(`svc-gateway listening on ${where}`)
  if (address._tag !== "UnixPathAddress") {
    const local = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host
    yield* Console.log(`console: http://${local}:${address.port}/console`)
  }
}))

const Main = Announce.pipe(
  Layer.provide(HttpApp.pipe(Layer.provideMerge(NodeServerLive))),
  Layer.provide(AppServices),
  // taken before the store opens, released after it closes: the CLI must not open a folder in use
  Layer.provide(DataDirLockLive),
  Layer.provide(GatewayConfig.layer),
  // outermost: built first and released last, so spans of the shutdown itself are exported
  Layer.provide(TracingLive)
)

/**
 * SIGTERM is how a process manager stops a service: once the gateway has drained and closed, that is a
 * clean exit (0), not a failure. Ctrl+C (SIGINT) keeps the interrupted code, 130.
 */
let terminated = false
process.once("SIGTERM", () => {
  terminated = true
})
const teardown: Runtime.Teardown = (exit, onExit) =>
  Runtime.defaultTeardown(exit, (code) => onExit(terminated && code === 130 ? 0 : code))

const runGateway = () =>
  NodeRuntime.runMain({ teardown })(
    Layer.launch(Main).pipe(
      // a second gateway on the same folder: say why, without a stack
      Effect.catchTag("DataDirLockError", (error) =>
        Console.error(error.message).pipe(Effect.andThen(Effect.sync(() => {
          process.exitCode = 1
        }))))
    )
  )

const workers = workersWanted(process.env)
if (typeof workers === "string") {
  console.error(workers)
  process.exitCode = 1
} else if (workers > 1 && isPrimaryOfWorkers()) {
  superviseWorkers(workers)
} else {
  runGateway()
}
