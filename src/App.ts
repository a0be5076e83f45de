/**
 * The whole gateway as layers. `AppServices` builds every service from the settings (store, auth,
 * providers, chat core); `HttpApp` serves the routes over them. `main.ts` adds a Node server; tests add
 * one on a random port, or swap a service for a fake.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { ByteSize, Duration, Effect, Layer } from "effect"
import { HttpIncomingMessage, HttpRouter, UrlParams } from "effect/http"
import { Server, type ServerOptions } from "node:http"
import { Audit } from "./audit/Audit.ts"
import { AdminAuth } from "./auth/AdminAuth.ts"
import { Auth } from "./auth/Auth.ts"
import { GatewayConfig, type GatewaySettings } from "./Config.ts"
import { ConsoleRoutes } from "./console/ConsoleRoutes.ts"
import { GatewayCore } from "./core/GatewayCore.ts"
import { AdminApiRoutes } from "./http/AdminApiLive.ts"
import { AdminDocsRoute } from "./http/AdminDocs.ts"
import { onClientError } from "./http/ClientError.ts"
import { DialectRoutes } from "./http/DialectRoutes.ts"
import { FallbackRoutes } from "./http/FallbackRoutes.ts"
import { McpEndpoint } from "./http/McpEndpoint.ts"
import { McpOAuthRoute } from "./http/McpOAuthRoute.ts"
import { SessionRoute } from "./http/SessionRoute.ts"
import { SsoRoutes } from "./http/SsoRoutes.ts"
import { SystemRoutes } from "./http/SystemRoutes.ts"
import { ApiKeys } from "./keys/ApiKeys.ts"
import { BudgetAlerts } from "./limits/BudgetAlerts.ts"
import { RateLimits } from "./limits/RateLimits.ts"
import { RequestLog } from "./logs/RequestLog.ts"
import { RequestQueries } from "./logs/RequestQueries.ts"
import { McpServers } from "./mcp/McpServers.ts"
import { McpSources } from "./mcp/McpSources.ts"
import { MetricsLogStatsLive } from "./observability/LogStatsSource.ts"
import { Metrics } from "./observability/Metrics.ts"
import { MetricsRoutes } from "./observability/MetricsRoutes.ts"
import { TraceIdHeader } from "./observability/TraceHeaders.ts"
import { Orgs } from "./orgs/Orgs.ts"
import { Prices } from "./prices/Prices.ts"
import { Providers } from "./providers/Providers.ts"
import { UpstreamTransport } from "./providers/UpstreamTransport.ts"
import { ConsoleSessions } from "./sso/ConsoleSessions.ts"
import { Oidc } from "./sso/Oidc.ts"
import { DatabaseLive } from "./store/Database.ts"
import { SecretSeal } from "./store/SecretSeal.ts"
import { CutOutputs } from "./tools/CutOutputs.ts"
import { PendingCalls } from "./tools/PendingCalls.ts"
import { Policy } from "./tools/Policy.ts"
import { ToolRegistry } from "./tools/ToolRegistry.ts"
import { Users } from "./users/Users.ts"

/** Pooled keep-alive connections to every upstream over undici, with the configured connect timeout. */
export const UpstreamClientLive = Layer.unwrap(Effect.gen(function*() {
  const config = yield* GatewayConfig
  return UpstreamTransport.layerUndici({ connectTimeout: config.connectTimeout })
}))

/**
 * Store-backed services: repositories, authentication, the request log, limits and budget alerts. Released after the server
 * drained, so the log's last rows are flushed before the store closes.
 */
export const StoreServices = Layer.mergeAll(
  AdminAuth.layer,
  Auth.layer,
  RequestLog.layer,
  RequestQueries.layer,
  RateLimits.layerFromConfig,
  ConsoleSessions.layer,
  Oidc.layer
).pipe(
  Layer.provideMerge(BudgetAlerts.layerFetch),
  Layer.provideMerge(Audit.layer),
  Layer.provideMerge(Users.layer),
  Layer.provideMerge(ApiKeys.layer),
  Layer.provideMerge(Orgs.layer),
  Layer.provideMerge(DatabaseLive)
)

/** Shared tools over a catalogue: the org/key policy and pending mixed turns. */
export const toolServices = <E, R>(registry: Layer.Layer<ToolRegistry, E, R>) =>
  Layer.mergeAll(Policy.layer, PendingCalls.layer, CutOutputs.layer).pipe(Layer.provideMerge(registry))

/** Provider registry, prices and chat core; needs the store, the tool services and an upstream HTTP client. */
export const ChatServices = GatewayCore.layer.pipe(
  Layer.provideMerge(Providers.layer),
  Layer.provideMerge(Prices.layer)
)

/** MCP servers as sources of shared tools: the operator's and the orgs' (sealed headers, stored lists). */
const McpSourcesLive = McpSources.layer.pipe(Layer.provide(Layer.mergeAll(McpServers.layer, SecretSeal.layer)))

/** Every service; tests may install other shared tools than the plugins. */
export const appServices = <E, R>(registry: Layer.Layer<ToolRegistry, E, R>) =>
  Layer.mergeAll(ChatServices.pipe(Layer.provide(UpstreamClientLive)), MetricsLogStatsLive, McpSourcesLive).pipe(
    Layer.provideMerge(toolServices(registry)),
    Layer.provideMerge(StoreServices),
    Layer.provideMerge(Metrics.layer)
  )

export const AppServices = appServices(ToolRegistry.layer)

const BodyLimit = Layer.effect(
  HttpIncomingMessage.MaxBodySize,
  Effect.map(Effect.service(GatewayConfig), (config) => ByteSize.bytes(config.bodyLimitBytes))
)

/**
 * Query parameters whose values never reach a span or a log: Effect's list (signed URLs) and anything
 * named like a credential, as a client that puts its key in the URL (`?api_key=`) would.
 */
export const REDACTED_URL_PARAMS: ReadonlyArray<string | RegExp> = [
  ...UrlParams.CurrentRedactedNames.defaultValue(),
  /key|token|secret|passw|auth|sig|credential|session|code/i
]

const RedactedUrlParams = Layer.succeed(UrlParams.CurrentRedactedNames, REDACTED_URL_PARAMS)

export const Routes = Layer.mergeAll(
  DialectRoutes,
  AdminApiRoutes,
  AdminDocsRoute,
  SystemRoutes,
  SessionRoute,
  MetricsRoutes,
  SsoRoutes,
  McpEndpoint,
  McpOAuthRoute,
  ConsoleRoutes,
  FallbackRoutes,
  TraceIdHeader
)

/** The routes served over the app's services; still needs an `HttpServer` and `GatewayConfig`. */
export const HttpApp = HttpRouter.serve(Routes, { disableLogger: true, disableListenLog: true }).pipe(
  Layer.provide([BodyLimit, RedactedUrlParams])
)

/**
 * A Node server whose `close()` also ends keep-alive connections as they fall idle. Node's own
 * `close()` ends only the connections idle at that moment, so a client that keeps its connection alive
 * (the SDKs do) would hold the exit until the grace period ran out, after its last response was done.
 * A request Node cannot parse is answered in JSON (`ClientError.ts`).
 */
export class DrainingServer extends Server {
  constructor(options: ServerOptions = {}) {
    super(options)
    this.on("clientError", onClientError)
  }

  override close(callback?: (error?: Error) => void): this {
    this.closeIdleConnections()
    const timer = setInterval(() => this.closeIdleConnections(), 50)
    timer.unref()
    this.once("close", () => clearInterval(timer))
    return super.close(callback)
  }
}

/**
 * The Node server's own limits: keep-alive past a load balancer's 60 s; a client slow to send its
 * headers or its request cut after `GATEWAY_HEADERS_TIMEOUT` / `GATEWAY_REQUEST_TIMEOUT` (Node checks
 * them every few seconds), so connections trickling a byte at a time cannot pile up. Neither applies
 * to an answer: a stream lasts as long as the upstream's.
 */
export const serverOptions = (config: Pick<GatewaySettings, "headersTimeout" | "requestTimeout">): ServerOptions => {
  const headersMs = Duration.toMillis(config.headersTimeout)
  const requestMs = Math.max(headersMs, Duration.toMillis(config.requestTimeout))
  return {
    keepAliveTimeout: 65_000,
    headersTimeout: headersMs,
    requestTimeout: requestMs,
    connectionsCheckingInterval: Math.max(100, Math.min(5_000, Math.floor(headersMs / 4)))
  }
}

/**
 * The Node HTTP server from the settings: on SIGTERM it stops accepting, lets in-flight requests finish
 * within the grace period, then exits.
 */
export const NodeServerLive = Layer.unwrap(Effect.gen(function*() {
  const config = yield* GatewayConfig
  return NodeHttpServer.layer(() => new DrainingServer(serverOptions(config)), {
    port: config.port,
    host: config.host,
    gracefulShutdownTimeout: config.shutdownGrace
  })
}))
