/**
 * Which provider serves which model. Read from the file named by `GATEWAY_CONFIG` (JSON or YAML);
 * without a file, from well-known environment variables (`OPENAI_API_KEY` serves author `openai`, and
 * so on). The built-in `local` provider is always there.
 *
 * ```yaml
 * providers:
 *   groq: { adapter: openai-compatible, base_url: https://api.groq.com/openai/v1, api_key_env: GROQ_API_KEY }
 *   vllm:                       # its own prices, dollars per million tokens (else the catalogue's)
 *     base_url: http://10.0.0.5:8000/v1
 *     prices: { "*": { input: 0.2, output: 0.6 } }
 * routes:                       # optional; an author id equal to a provider name needs no route
 *   - { match: "team/fast", provider: groq, model: llama-3.1-8b-instant }
 *   - { match: "meta/*", provider: groq }
 *   - match: "team/claude"      # load-balanced: picked by weight, a session keeps its target
 *     targets: [{ provider: anthropic-eu, model: claude-sonnet-4-5, weight: 3 }, { provider: anthropic-us, model: claude-sonnet-4-5 }]
 * fallbacks:                    # tried in order when the first model fails with a retryable error
 *   "openai/gpt-4o": ["groq/llama-3.3-70b-versatile"]
 * mcp_servers:                  # shared tools svc_mcp_<name>_<tool> every org may activate
 *   docs: { url: https://mcp.example.com/mcp, headers_env: { Authorization: DOCS_MCP_AUTH } }
 *   files: { command: npx, args: [-y, "@modelcontextprotocol/server-filesystem", /srv/shared] }
 * ```
 */
import { Config, Effect, Option, Redacted, Schema } from "effect"
import { readFile } from "node:fs/promises"
import { parse as parseYaml } from "yaml"
import type { McpServerSpec } from "../kernel/McpTarget.ts"
import { adapterNames, adapters, type ProviderSpec, wellKnown } from "./Adapters.ts"

const DollarsPerMillion = Schema.Number.check(Schema.isGreaterThanOrEqualTo(0))

/** A price a routing file sets for a provider's models: dollars per million tokens. */
export const PriceEntry = Schema.Struct({
  input: DollarsPerMillion,
  output: DollarsPerMillion,
  cached_input: Schema.optionalKey(DollarsPerMillion),
  cache_write: Schema.optionalKey(DollarsPerMillion)
})
export type PriceEntry = typeof PriceEntry.Type

export const ProviderEntry = Schema.Struct({
  adapter: Schema.optionalKey(Schema.Literals(adapterNames)),
  base_url: Schema.optionalKey(Schema.String),
  api_key_env: Schema.optionalKey(Schema.String),
  headers: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)),
  models: Schema.optionalKey(Schema.Array(Schema.String)),
  /** By model id, `*` globs allowed; the first match wins, in the file's order. */
  prices: Schema.optionalKey(Schema.Record(Schema.String, PriceEntry)),
  /** `openai` adapter: false for a server without `/responses` (else found out from its first 404). */
  responses: Schema.optionalKey(Schema.Boolean)
})

/** One of a balanced route's targets; `weight` (default 1) is its share of the route's new sessions. */
export const BalancedTarget = Schema.Struct({
  provider: Schema.NonEmptyString,
  model: Schema.optionalKey(Schema.NonEmptyString),
  weight: Schema.optionalKey(Schema.Number.check(Schema.isGreaterThan(0), Schema.isFinite()))
})
export type BalancedTarget = typeof BalancedTarget.Type

/** A route sends its matches to one `provider`, or spreads them over several `targets` by weight. */
export const RouteEntry = Schema.Struct({
  match: Schema.NonEmptyString,
  provider: Schema.optionalKey(Schema.NonEmptyString),
  model: Schema.optionalKey(Schema.NonEmptyString),
  targets: Schema.optionalKey(Schema.Array(BalancedTarget))
})
export type RouteEntry = typeof RouteEntry.Type

/**
 * An MCP server the operator runs or reaches: `url` (streamable HTTP, with `headers` and `headers_env`,
 * header name to the env variable holding its value) or `command` with `args` and `env` (stdio).
 */
export const McpServerEntry = Schema.Struct({
  url: Schema.optionalKey(Schema.NonEmptyString),
  headers: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)),
  headers_env: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)),
  command: Schema.optionalKey(Schema.NonEmptyString),
  args: Schema.optionalKey(Schema.Array(Schema.String)),
  env: Schema.optionalKey(Schema.Record(Schema.String, Schema.String))
})
export type McpServerEntry = typeof McpServerEntry.Type

export const RoutingFile = Schema.Struct({
  providers: Schema.optionalKey(Schema.Record(Schema.String, ProviderEntry)),
  routes: Schema.optionalKey(Schema.Array(RouteEntry)),
  fallbacks: Schema.optionalKey(Schema.Record(Schema.String, Schema.Array(Schema.String))),
  mcp_servers: Schema.optionalKey(Schema.Record(Schema.String, McpServerEntry))
})

export interface Routing {
  readonly providers: ReadonlyArray<ProviderSpec>
  readonly routes: ReadonlyArray<RouteEntry>
  readonly fallbacks: Readonly<Record<string, ReadonlyArray<string>>>
  /** A provider's own prices by model glob, when its entry sets them (else the catalogue's apply). */
  readonly prices: Readonly<Record<string, Readonly<Record<string, PriceEntry>>>>
  readonly mcpServers: ReadonlyArray<McpServerSpec>
}

export class RoutingConfigError extends Schema.TaggedError<RoutingConfigError>()("RoutingConfigError", {
  message: Schema.String
}) {}

const LOCAL: ProviderSpec = {
  name: "local",
  adapter: "local",
  baseUrl: "",
  apiKey: undefined,
  headers: {},
  models: ["echo"]
}

const optionalEnv = (name: string) => Config.String(name).pipe(Config.option, Effect.map(Option.getOrUndefined))

/**
 * Providers enabled by the environment alone: a well-known service is on when its `<NAME>_API_KEY` or
 * `<NAME>_BASE_URL` is set (self-hosted ones, which have no default URL, need the URL).
 */
export const routingFromEnv = Effect.gen(function*() {
  const providers: Array<ProviderSpec> = [LOCAL]
  for (const known of wellKnown) {
    const key = yield* optionalEnv(`${known.env}_API_KEY`)
    const url = (yield* optionalEnv(`${known.env}_BASE_URL`)) ?? (key !== undefined ? known.baseUrl : undefined)
    if (url === undefined) continue
    providers.push({
      name: known.name,
      adapter: known.adapter,
      baseUrl: url,
      apiKey: key === undefined ? undefined : Redacted.make(key),
      headers: {},
      models: []
    })
  }
  return { providers, routes: [], fallbacks: {}, prices: {}, mcpServers: [] } satisfies Routing
})

const decodeFile = Schema.decodeUnknownEffect(RoutingFile)

/** What is wrong with a route, if anything: it needs `provider` or `targets` (not both), all known. */
const routeProblem = (route: RouteEntry, known: ReadonlyMap<string, ProviderSpec>): string | undefined => {
  if (route.targets === undefined) {
    if (route.provider === undefined) return "needs a provider, or targets to balance between"
    return known.has(route.provider) ? undefined : `names unknown provider '${route.provider}'`
  }
  if (route.provider !== undefined || route.model !== undefined) {
    return "has targets: their provider and model go in each target, not on the route"
  }
  if (route.targets.length === 0) return "has no targets"
  const seen = new Set<string>()
  for (const target of route.targets) {
    if (!known.has(target.provider)) return `names unknown provider '${target.provider}'`
    const key = `${target.provider}/${target.model ?? "*"}`
    if (seen.has(key)) return `lists the target ${key} twice`
    seen.add(key)
  }
  return undefined
}

/** Parses a routing file's text; YAML is a superset of JSON, so one parser reads both. */
export const parseRoutingFile = Effect.fn("RoutingConfig.parse")(function*(text: string, origin: string) {
  const raw = yield* Effect.try({
    try: () => parseYaml(text) as unknown,
    catch: (error) => new RoutingConfigError({ message: `${origin}: not valid JSON or YAML: ${String(error)}` })
  })
  const file = yield* decodeFile(raw ?? {}).pipe(
    Effect.mapError((error) => new RoutingConfigError({ message: `${origin}: ${error.message}` }))
  )
  const env = yield* routingFromEnv
  const byName = new Map(env.providers.map((p) => [p.name, p]))
  for (const [name, entry] of Object.entries(file.providers ?? {})) {
    const adapter = entry.adapter ?? "openai-compatible"
    const baseUrl = entry.base_url ?? adapters[adapter].defaultBaseUrl
    if (baseUrl === undefined) {
      return yield* new RoutingConfigError({ message: `${origin}: provider '${name}' needs a base_url` })
    }
    if (entry.responses !== undefined && adapter !== "openai") {
      return yield* new RoutingConfigError({
        message: `${origin}: provider '${name}': 'responses' applies to the openai adapter only`
      })
    }
    const key = entry.api_key_env === undefined ? undefined : yield* optionalEnv(entry.api_key_env)
    byName.set(name, {
      name,
      adapter,
      baseUrl,
      apiKey: key === undefined ? undefined : Redacted.make(key),
      headers: entry.headers ?? {},
      models: entry.models ?? adapters[adapter].defaultModels,
      ...(entry.responses === undefined ? {} : { responses: entry.responses })
    })
  }
  for (const route of file.routes ?? []) {
    const problem = routeProblem(route, byName)
    if (problem !== undefined) {
      return yield* new RoutingConfigError({ message: `${origin}: route '${route.match}' ${problem}` })
    }
  }
  const prices: Record<string, Readonly<Record<string, PriceEntry>>> = {}
  for (const [name, entry] of Object.entries(file.providers ?? {})) {
    if (entry.prices !== undefined) prices[name] = entry.prices
  }
  const mcpServers: Array<McpServerSpec> = []
  for (const [name, entry] of Object.entries(file.mcp_servers ?? {})) {
    const server = yield* mcpServerOf(name, entry)
    if (typeof server === "string") {
      return yield* new RoutingConfigError({ message: `${origin}: MCP server '${name}' ${server}` })
    }
    mcpServers.push(server)
  }
  return {
    providers: [...byName.values()],
    routes: file.routes ?? [],
    fallbacks: file.fallbacks ?? {},
    prices,
    mcpServers
  } satisfies Routing
})

/** A configured MCP server, or what is wrong with its entry. */
const mcpServerOf = Effect.fnUntraced(function*(name: string, entry: McpServerEntry) {
  if (!/^[a-z][a-z0-9]{0,23}$/.test(name)) return "needs a name of 1 to 24 lower-case letters and digits"
  if ((entry.url === undefined) === (entry.command === undefined)) return "needs exactly one of 'url' and 'command'"
  if (entry.command !== undefined) {
    return {
      name,
      target: { kind: "stdio", command: entry.command, args: entry.args ?? [], env: entry.env ?? {} }
    } satisfies McpServerSpec
  }
  if (!URL.canParse(entry.url!) || !/^https?:$/.test(new URL(entry.url!).protocol)) return "needs an http(s) 'url'"
  const headers: Record<string, string> = { ...entry.headers }
  for (const [header, variable] of Object.entries(entry.headers_env ?? {})) {
    const value = yield* optionalEnv(variable)
    if (value === undefined) return `names ${variable} in headers_env, which is not set`
    headers[header] = value
  }
  return { name, target: { kind: "http", url: entry.url!, headers } } satisfies McpServerSpec
})

/** The routing the settings ask for: the file when `GATEWAY_CONFIG` names one, else the environment. */
export const loadRouting = (configFile: Option.Option<string>) =>
  Option.match(configFile, {
    onNone: () => routingFromEnv,
    onSome: (path) =>
      Effect.tryPromise({
        try: () => readFile(path, "utf8"),
        catch: (error) =>
          new RoutingConfigError({ message: `cannot read GATEWAY_CONFIG file ${path}: ${String(error)}` })
      }).pipe(Effect.flatMap((text) => parseRoutingFile(text, path)))
  })
