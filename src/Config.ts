/**
 * Gateway settings, read once from the environment. Every setting has an env variable and a default;
 * the README's configuration table lists the same names. Tests provide their own values through
 * `GatewayConfig.layerFrom` instead of touching `process.env`.
 */
import { Config, ConfigProvider, Context, Duration, Layer, Option, Redacted } from "effect"
import { fileURLToPath } from "node:url"
import { COMPRESSION_LEVELS, type CompressionLevel } from "./kernel/CompressionLevel.ts"

/** Where `npm run build` writes the console (see src/console/vite.config.ts). */
const BUILT_CONSOLE = fileURLToPath(new URL("../dist/console", import.meta.url))

const settings = Config.all({
  port: Config.Port("PORT").pipe(Config.withDefault(8080)),
  host: Config.String("HOST").pipe(Config.withDefault("0.0.0.0")),
  databaseUrl: Config.Redacted("DATABASE_URL").pipe(Config.option),
  redisUrl: Config.String("REDIS_URL").pipe(Config.option),
  dataDir: Config.String("GATEWAY_DATA_DIR").pipe(Config.withDefault("./.data")),
  adminToken: Config.Redacted("GATEWAY_ADMIN_TOKEN").pipe(Config.option),
  configFile: Config.String("GATEWAY_CONFIG").pipe(Config.option),
  bodyLimitBytes: Config.Int("GATEWAY_BODY_LIMIT_BYTES").pipe(Config.withDefault(16 * 1024 * 1024)),
  keyCacheTtl: Config.Duration("GATEWAY_KEY_CACHE_TTL").pipe(Config.withDefault(Duration.seconds(5))),
  keyStaleMax: Config.Duration("GATEWAY_KEY_STALE_MAX").pipe(Config.withDefault(Duration.minutes(10))),
  modelsRefresh: Config.Duration("GATEWAY_MODELS_REFRESH").pipe(Config.withDefault(Duration.minutes(10))),
  connectTimeout: Config.Duration("GATEWAY_UPSTREAM_CONNECT_TIMEOUT").pipe(Config.withDefault(Duration.seconds(10))),
  firstByteTimeout: Config.Duration("GATEWAY_UPSTREAM_FIRST_BYTE_TIMEOUT").pipe(
    Config.withDefault(Duration.seconds(120))
  ),
  idleTimeout: Config.Duration("GATEWAY_UPSTREAM_IDLE_TIMEOUT").pipe(Config.withDefault(Duration.seconds(120))),
  totalTimeout: Config.Duration("GATEWAY_UPSTREAM_TOTAL_TIMEOUT").pipe(Config.withDefault(Duration.minutes(10))),
  upstreamRetries: Config.Int("GATEWAY_UPSTREAM_RETRIES").pipe(Config.withDefault(2)),
  retryBackoff: Config.Duration("GATEWAY_UPSTREAM_RETRY_BACKOFF").pipe(Config.withDefault(Duration.millis(250))),
  retryAfterMax: Config.Duration("GATEWAY_UPSTREAM_RETRY_AFTER_MAX").pipe(Config.withDefault(Duration.seconds(10))),
  retryDeadline: Config.Duration("GATEWAY_UPSTREAM_RETRY_DEADLINE").pipe(Config.withDefault(Duration.seconds(30))),
  circuitFailures: Config.Int("GATEWAY_CIRCUIT_FAILURES").pipe(Config.withDefault(5)),
  circuitCooldown: Config.Duration("GATEWAY_CIRCUIT_COOLDOWN").pipe(Config.withDefault(Duration.seconds(30))),
  shutdownGrace: Config.Duration("GATEWAY_SHUTDOWN_GRACE").pipe(Config.withDefault(Duration.seconds(10))),
  headersTimeout: Config.Duration("GATEWAY_HEADERS_TIMEOUT").pipe(Config.withDefault(Duration.seconds(20))),
  requestTimeout: Config.Duration("GATEWAY_REQUEST_TIMEOUT").pipe(Config.withDefault(Duration.seconds(120))),
  socketIdleTimeout: Config.Duration("GATEWAY_SOCKET_IDLE_TIMEOUT").pipe(Config.withDefault(Duration.minutes(10))),
  bootstrap: Config.Boolean("GATEWAY_BOOTSTRAP").pipe(Config.withDefault(true)),
  toolTimeout: Config.Duration("GATEWAY_SVC_TOOL_TIMEOUT").pipe(Config.withDefault(Duration.seconds(10))),
  toolMaxOutputBytes: Config.Int("GATEWAY_SVC_TOOL_MAX_OUTPUT_BYTES").pipe(Config.withDefault(64 * 1024)),
  toolMaxRounds: Config.Int("GATEWAY_SVC_TOOL_MAX_ROUNDS").pipe(Config.withDefault(5)),
  pendingTtl: Config.Duration("GATEWAY_SVC_PENDING_TTL").pipe(Config.withDefault(Duration.hours(1))),
  consoleDir: Config.String("GATEWAY_CONSOLE_DIR").pipe(Config.withDefault(BUILT_CONSOLE)),
  compression: Config.Literals(COMPRESSION_LEVELS, "GATEWAY_COMPRESSION").pipe(Config.withDefault("safe" as const)),
  alertWebhookHosts: Config.String("GATEWAY_ALERT_WEBHOOK_HOSTS").pipe(
    Config.map((text) => text.split(",").map((host) => host.trim()).filter((host) => host !== "")),
    Config.option,
    Config.map(Option.getOrUndefined)
  ),
  oidc: Config.all({
    issuer: Config.String("GATEWAY_OIDC_ISSUER").pipe(Config.option),
    clientId: Config.String("GATEWAY_OIDC_CLIENT_ID").pipe(Config.option),
    clientSecret: Config.Redacted("GATEWAY_OIDC_CLIENT_SECRET").pipe(Config.option),
    redirectUrl: Config.String("GATEWAY_OIDC_REDIRECT_URL").pipe(Config.option),
    scopes: Config.String("GATEWAY_OIDC_SCOPES").pipe(Config.withDefault("openid email profile")),
    rolesClaim: Config.String("GATEWAY_OIDC_ROLES_CLAIM").pipe(Config.option),
    roleMap: Config.String("GATEWAY_OIDC_ROLE_MAP").pipe(Config.withDefault("")),
    requireVerifiedEmail: Config.Boolean("GATEWAY_OIDC_REQUIRE_VERIFIED_EMAIL").pipe(Config.withDefault(true))
  }),
  consoleSessionTtl: Config.Duration("GATEWAY_CONSOLE_SESSION_TTL").pipe(Config.withDefault(Duration.hours(12))),
  secretKey: Config.Redacted("GATEWAY_SECRET_KEY").pipe(Config.option),
  mcpSessionIdle: Config.Duration("GATEWAY_MCP_SESSION_IDLE").pipe(Config.withDefault(Duration.hours(24))),
  mcpServerHosts: Config.String("GATEWAY_MCP_SERVER_HOSTS").pipe(
    Config.map((text) => text.split(",").map((host) => host.trim()).filter((host) => host !== "")),
    Config.option,
    Config.map(Option.getOrUndefined)
  )
})

/** Single sign-on for the console, as read; `sso/Oidc.ts` checks it when the gateway starts. */
export interface OidcSettings {
  /** The OpenID provider's issuer URL; none: no single sign-on, the console takes tokens only. */
  readonly issuer: Option.Option<string>
  readonly clientId: Option.Option<string>
  readonly clientSecret: Option.Option<Redacted.Redacted<string>>
  /** Where the provider sends the browser back; none: `<the request's origin>/console/sso/callback`. */
  readonly redirectUrl: Option.Option<string>
  readonly scopes: string
  /** The claim whose values `roleMap` maps to roles (`groups`); none: an owner gives roles. */
  readonly rolesClaim: Option.Option<string>
  /** `group=role[:org_id]` entries separated by commas (`sso/RoleMap.ts`). */
  readonly roleMap: string
  /** Refuse a sign-in whose `email_verified` claim is not true. */
  readonly requireVerifiedEmail: boolean
}

export interface GatewaySettings {
  readonly port: number
  readonly host: string
  readonly databaseUrl: Option.Option<Redacted.Redacted<string>>
  /** A Redis shared by several instances for rate limits and circuit breakers; none: per instance. */
  readonly redisUrl: Option.Option<string>
  readonly dataDir: string
  readonly adminToken: Option.Option<Redacted.Redacted<string>>
  readonly configFile: Option.Option<string>
  /** Largest request body read, in bytes; past it the request gets 413. */
  readonly bodyLimitBytes: number
  /** How long a key lookup is cached; bounds how late another instance sees a revocation. */
  readonly keyCacheTtl: Duration.Duration
  /** How long a key seen before a store outage keeps working from its last known state during it. */
  readonly keyStaleMax: Duration.Duration
  /** How often providers without configured models are asked for their list; 0: never. */
  readonly modelsRefresh: Duration.Duration
  readonly connectTimeout: Duration.Duration
  readonly firstByteTimeout: Duration.Duration
  /** Longest silence between two chunks of an upstream stream. */
  readonly idleTimeout: Duration.Duration
  readonly totalTimeout: Duration.Duration
  /** Calls of the same target after its first, for 429, 500, 502, 503, 504 and 529. */
  readonly upstreamRetries: number
  /** The first retry's backoff; each next one doubles (jittered). */
  readonly retryBackoff: Duration.Duration
  /** The longest upstream `Retry-After` waited for; a longer one moves to the next target. */
  readonly retryAfterMax: Duration.Duration
  /** No retry wait ends later than this after a round's first failure. */
  readonly retryDeadline: Duration.Duration
  /** Failures in a row that open a target's circuit; 0: no circuit breakers. */
  readonly circuitFailures: number
  /** How long an open circuit skips its target before one probe. */
  readonly circuitCooldown: Duration.Duration
  readonly shutdownGrace: Duration.Duration
  /** How long a client may take to send a request's headers; a slower connection is cut. */
  readonly headersTimeout: Duration.Duration
  /** How long a client may take to send a whole request, body included (never the answer: streams last). */
  readonly requestTimeout: Duration.Duration
  /** How long a WebSocket (Codex's, to /v1/responses) may stay silent between requests before it is closed. */
  readonly socketIdleTimeout: Duration.Duration
  /** Create a default org and a dev key on the first start with an empty store. */
  readonly bootstrap: boolean
  /** Longest run of a shared tool that sets no timeout of its own. */
  readonly toolTimeout: Duration.Duration
  /** Largest shared-tool result sent to the model; a larger one becomes an error result. */
  readonly toolMaxOutputBytes: number
  /** Model calls per request when shared tools run in a loop. */
  readonly toolMaxRounds: number
  /** How long a `svc_pending_id` can be continued. */
  readonly pendingTtl: Duration.Duration
  /** The built console's files, served at `/console`. */
  readonly consoleDir: string
  /** The compression level of organizations that chose none, for requests that ask for none. */
  readonly compression: CompressionLevel
  /** Hosts a budget alert's webhook may reach (`*.example.com` for a domain); undefined: every host. */
  readonly alertWebhookHosts: ReadonlyArray<string> | undefined
  readonly oidc: OidcSettings
  /** How long a console session made by single sign-on lasts before the person signs in again. */
  readonly consoleSessionTtl: Duration.Duration
  /** Seals credentials the store keeps (an MCP server's headers and tokens); none: none can be kept. */
  readonly secretKey: Option.Option<Redacted.Redacted<string>>
  /** How long a session of the gateway's own `/mcp` is kept without a request before it is ended. */
  readonly mcpSessionIdle: Duration.Duration
  /** Hosts an org's MCP server may be at (`*.example.com` for a domain); undefined: every host. */
  readonly mcpServerHosts: ReadonlyArray<string> | undefined
}

export class GatewayConfig extends Context.Service<GatewayConfig, GatewaySettings>()("svc-gateway/GatewayConfig") {
  static readonly layer = Layer.effect(GatewayConfig, settings)

  /** Settings from an explicit record (tests, the CLI's overrides) instead of the process environment. */
  static readonly layerFrom = (env: Record<string, string>) =>
    GatewayConfig.layer.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord(env))))
}
