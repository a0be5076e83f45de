/**
 * The provider registry: resolves a model address `author_id/model_id` to the provider instance that
 * serves it and the model id that provider knows, followed by the configured fallbacks.
 */
import { Context, Duration, Effect, Layer, Schedule } from "effect"
import { GatewayConfig } from "../Config.ts"
import { ModelNotFound, RequestError } from "../kernel/RequestError.ts"
import { adapters } from "./Adapters.ts"
import type { Provider } from "./Provider.ts"
import { loadRouting, type RouteEntry, type Routing, RoutingConfigError } from "./RoutingConfig.ts"

/** A target's place in a balanced route: the route (its `match`) and the target's weight in it. */
export interface Balance {
  readonly route: string
  readonly weight: number
}

/** One place a request can go: the provider and the model id to send it. */
export interface Target {
  /** The address this target answers for, as written by the client or in `fallbacks`. */
  readonly address: string
  readonly provider: Provider
  readonly modelId: string
  /** Set on the targets of a balanced route, which come together in a chain, in the route's order. */
  readonly balance?: Balance | undefined
}

/** Whether `a` and `b` are targets of the same balanced route, reached through the same address. */
export const sameGroup = (a: Target, b: Target | undefined): boolean =>
  b !== undefined && a.balance !== undefined && b.balance?.route === a.balance.route && b.address === a.address

export interface ModelEntry {
  readonly id: string
  readonly owned_by: string
}

/** A pattern where `*` stands for any text, as routes and prices write model names. */
export const globToRegExp = (glob: string) =>
  new RegExp(`^${glob.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*")}$`)

/** Splits at the first slash: model ids may contain slashes themselves (`openrouter/meta/llama`). */
export const splitAddress = (address: string): { readonly author: string; readonly modelId: string } | undefined => {
  const slash = address.indexOf("/")
  if (slash <= 0 || slash === address.length - 1) return undefined
  return { author: address.slice(0, slash), modelId: address.slice(slash + 1) }
}

/** The models providers listed themselves (`Provider.listModels`), by provider name; `version` counts changes. */
export class FetchedModels {
  readonly byProvider = new Map<string, ReadonlyArray<string>>()
  version = 0
  set(provider: string, ids: ReadonlyArray<string>): void {
    this.byProvider.set(provider, ids)
    this.version++
  }
}

/**
 * The registry over `providers`. `fetched`: what providers the routing file lists no models for listed
 * themselves, read when `models()` is asked.
 */
export const makeRegistry = (
  routing: Routing,
  providers: ReadonlyMap<string, Provider>,
  fetched = new FetchedModels()
) => {
  const routes = routing.routes.map((route: RouteEntry) => ({ route, pattern: globToRegExp(route.match) }))

  /** The route's targets for `address` (several when it balances), or undefined when it names no provider. */
  const routed = (route: RouteEntry, address: string, modelId: string): ReadonlyArray<Target> | undefined => {
    if (route.targets === undefined) {
      const provider = providers.get(route.provider!)
      return provider === undefined ? undefined : [{ address, provider, modelId: route.model ?? modelId }]
    }
    const targets: Array<Target> = []
    for (const target of route.targets) {
      const provider = providers.get(target.provider)
      if (provider === undefined) continue
      targets.push({
        address,
        provider,
        modelId: target.model ?? modelId,
        balance: { route: route.match, weight: target.weight ?? 1 }
      })
    }
    return targets.length === 0 ? undefined : targets
  }

  const resolveOne = (address: string): ReadonlyArray<Target> | undefined => {
    const parts = splitAddress(address)
    if (parts === undefined) return undefined
    for (const { pattern, route } of routes) {
      if (pattern.test(address) || pattern.test(parts.author)) {
        const targets = routed(route, address, parts.modelId)
        if (targets !== undefined) return targets
      }
    }
    const provider = providers.get(parts.author)
    return provider === undefined ? undefined : [{ address, provider, modelId: parts.modelId }]
  }

  const chains = new Map<string, ReadonlyArray<Target>>()
  for (const [address, backups] of Object.entries(routing.fallbacks)) {
    const chain: Array<Target> = []
    for (const backup of [address, ...backups]) {
      const targets = resolveOne(backup)
      if (targets === undefined) {
        return Effect.fail(
          new RoutingConfigError({ message: `fallback model '${backup}' is not routed to any provider` })
        )
      }
      chain.push(...targets)
    }
    chains.set(address, chain)
  }

  /** A bare model name: a route that matches the name itself, else the name under `author`. */
  const resolveBare = (name: string, author: string): ReadonlyArray<Target> | undefined => {
    for (const { pattern, route } of routes) {
      if (pattern.test(name)) {
        const targets = routed(route, name, name)
        if (targets !== undefined) return targets
      }
    }
    return resolveOne(`${author}/${name}`)
  }

  const resolve = (address: string, bareAuthor?: string): Effect.Effect<ReadonlyArray<Target>, RequestError> => {
    const chain = chains.get(address)
    if (chain !== undefined) return Effect.succeed(chain)
    const targets = bareAuthor !== undefined && !address.includes("/")
      ? resolveBare(address, bareAuthor)
      : resolveOne(address)
    return targets === undefined
      ? Effect.fail(new RequestError({ reason: new ModelNotFound({ model: address }) }))
      : Effect.succeed(targets)
  }

  // an exact route decides where its address goes, so it wins over a provider's own listing
  const listing = (): ReadonlyArray<ModelEntry> => {
    const listed = new Map<string, ModelEntry>()
    for (const provider of providers.values()) {
      const own = provider.models.length > 0 ? provider.models : fetched.byProvider.get(provider.name) ?? []
      for (const model of own) {
        listed.set(`${provider.name}/${model}`, { id: `${provider.name}/${model}`, owned_by: provider.name })
      }
    }
    for (const route of routing.routes) {
      const owner = route.provider ?? route.targets?.[0]?.provider
      if (!route.match.includes("*") && owner !== undefined) {
        listed.set(route.match, { id: route.match, owned_by: owner })
      }
    }
    return [...listed.values()]
  }
  // rebuilt only when a fetched list changed
  let cached = listing()
  let version = fetched.version
  const models = (): ReadonlyArray<ModelEntry> => {
    if (fetched.version !== version) {
      version = fetched.version
      cached = listing()
    }
    return cached
  }

  return Effect.succeed(Providers.of({ resolve, models }))
}

/**
 * Asks every provider with no configured models for its own list, now and every `every`, in the
 * background: a provider that is down, slow (10 s at most) or cannot list keeps its last list (none at
 * first) and never delays start-up.
 */
const refreshModels = (
  providers: ReadonlyMap<string, Provider>,
  fetched: FetchedModels,
  every: Duration.Duration
) => {
  const listers = [...providers.values()].filter((provider) =>
    provider.models.length === 0 && provider.listModels !== undefined
  )
  if (listers.length === 0 || Duration.toMillis(every) <= 0) return Effect.void
  const once = Effect.forEach(listers, (provider) =>
    provider.listModels!.pipe(
      Effect.tap((ids) => Effect.sync(() => fetched.set(provider.name, ids))),
      Effect.catch((error) =>
        Effect.logWarning("could not list the provider's models", {
          provider: provider.name,
          reason: error.reason._tag
        })
      )
    ), { concurrency: "unbounded", discard: true })
  return Effect.forkScoped(Effect.repeat(once, Schedule.spaced(every)))
}

export class Providers extends Context.Service<Providers, {
  /**
   * The primary target first, then its fallbacks; `model_not_found` when nothing serves the address. A
   * bare name (no author) is looked up as `bareAuthor`'s when one is given.
   */
  readonly resolve: (address: string, bareAuthor?: string) => Effect.Effect<ReadonlyArray<Target>, RequestError>
  /** The routable models: the routing file's, else what each provider listed itself (refreshed). */
  readonly models: () => ReadonlyArray<ModelEntry>
}>()("svc-gateway/Providers") {
  static readonly layer = Layer
    .effect(
      Providers,
      Effect.gen(function*() {
        const config = yield* GatewayConfig
        const routing = yield* loadRouting(config.configFile)
        const timeouts = {
          firstByte: config.firstByteTimeout,
          idle: config.idleTimeout,
          total: config.totalTimeout
        }
        const providers = new Map<string, Provider>()
        for (const spec of routing.providers) {
          providers.set(spec.name, yield* adapters[spec.adapter].make(spec, { timeouts }))
        }
        const fetched = new FetchedModels()
        yield* refreshModels(providers, fetched, config.modelsRefresh)
        return yield* makeRegistry(routing, providers, fetched)
      })
    )
}
