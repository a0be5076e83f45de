/**
 * The real gateway (every production service and route, as `test/utils/TestGateway.ts` starts it) plus
 * the observability layers wired the way the lead is asked to wire them in `App.ts` / `main.ts`:
 * `TraceIdHeader` and `MetricsRoutes` merged with the routes, `Metrics` among the services, and a
 * tracing layer (`TracingTest(exporter)` or `TracingLive`) provided outermost.
 *
 * Once `App.ts` has them too, adding them here again is harmless: layers are memoized by instance
 * within one build, so `MetricsRoutes`, `TraceIdHeader` and `Metrics.layer` are still built once.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { ByteSize, ConfigProvider, Effect, Layer, ManagedRuntime } from "effect"
import { HttpIncomingMessage, HttpRouter, HttpServer } from "effect/http"
import { createServer } from "node:http"
import { AppServices, Routes } from "../../src/App.ts"
import { GatewayConfig } from "../../src/Config.ts"
import { Metrics, type MetricsShape } from "../../src/observability/Metrics.ts"
import { MetricsRoutes } from "../../src/observability/MetricsRoutes.ts"
import { TraceIdHeader } from "../../src/observability/TraceHeaders.ts"
import { ADMIN_TOKEN, type TestGateway, testEnv } from "../utils/TestGateway.ts"

export interface ObservedGateway extends TestGateway {
  readonly metrics: MetricsShape
}

export const startObservedGateway = async <A, E>(
  env: Record<string, string>,
  tracing: Layer.Layer<A, E>
): Promise<ObservedGateway> => {
  const settings = testEnv(env)
  const app = HttpRouter.serve(Layer.mergeAll(Routes, TraceIdHeader, MetricsRoutes), {
    disableLogger: true,
    disableListenLog: true
  }).pipe(Layer.provide(Layer.succeed(HttpIncomingMessage.MaxBodySize, ByteSize.mebibytes(16))))
  const layer = app.pipe(
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
    Layer.provideMerge(AppServices),
    Layer.provideMerge(Metrics.layer),
    Layer.provideMerge(GatewayConfig.layerFrom(settings)),
    Layer.provide(tracing),
    Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord(settings)))
  )
  const runtime = ManagedRuntime.make(layer)
  const { address, metrics } = await runtime.runPromise(Effect.gen(function*() {
    const server = yield* HttpServer.HttpServer
    return { address: server.address, metrics: yield* Metrics }
  }))
  if (address._tag === "UnixPathAddress") throw new Error("expected a TCP address")
  const url = `http://127.0.0.1:${address.port}`

  const admin = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${url}/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    const text = await response.text()
    return { status: response.status, json: text === "" ? null : JSON.parse(text) }
  }

  const newKey = async (options: { readonly expiresAt?: string } = {}) => {
    const org = await admin("POST", "/orgs", { name: `org-${Math.random().toString(36).slice(2)}` })
    if (org.status !== 201) throw new Error(`org create failed: ${JSON.stringify(org)}`)
    const key = await admin("POST", `/orgs/${org.json.id}/keys`, {
      name: "test",
      ...(options.expiresAt === undefined ? {} : { expires_at: options.expiresAt })
    })
    if (key.status !== 201) throw new Error(`key create failed: ${JSON.stringify(key)}`)
    return { orgId: String(org.json.id), keyId: String(key.json.id), key: String(key.json.key) }
  }

  return { url, admin, newKey, metrics, close: () => runtime.dispose() }
}
