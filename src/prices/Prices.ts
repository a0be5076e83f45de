/**
 * The effective price of each model the gateway routes to: a routing file's own `prices` for the
 * provider (a private deployment, a negotiated rate) first, else `@pydantic/genai-prices`' catalogue,
 * which is bundled with the package (nothing is fetched at run time), else unknown: a model without a
 * price costs `null`, never 0. The built-in `local` provider is free. Looked up once per provider and
 * model, then kept. The catalogue is loaded only when some provider is not `local`: it holds every
 * vendor's prices, about 12 MiB resident, which a gateway serving `local` alone would carry for nothing
 * (the bundle leaves the package outside, like gpt-tokenizer).
 */
import type * as GenaiPrices from "@pydantic/genai-prices"
import { Context, Effect, Layer } from "effect"
import { GatewayConfig } from "../Config.ts"
import type { AdapterName, ProviderSpec } from "../providers/Adapters.ts"
import { globToRegExp } from "../providers/Providers.ts"
import { loadRouting } from "../providers/RoutingConfig.ts"
import { FREE, fromCatalogue, fromRouting, type ModelPrice, type PriceInput, type PriceSource } from "./ModelPrice.ts"

export interface EffectivePrice {
  /** null: no price is known for the model. */
  readonly price: ModelPrice | null
  readonly source: PriceSource | null
  /** The catalogue's id for the model, when the price is the catalogue's (`gpt-4o` for `gpt-4o-2024-08-06`). */
  readonly catalogueModel: string | null
}

/** Per provider; a name past it is looked up again each time, which is correct, only slower. */
const MAX_MODELS_KEPT = 1_000

const UNKNOWN: EffectivePrice = { price: null, source: null, catalogueModel: null }

/** The catalogue's provider ids for the adapters that speak one vendor's API. */
const VENDOR: Partial<Record<AdapterName, string>> = {
  openai: "openai",
  "openai-responses": "openai",
  anthropic: "anthropic",
  gemini: "google"
}

/** What the gateway uses of `@pydantic/genai-prices`. */
export type Catalogue = Pick<typeof GenaiPrices, "calcPrice" | "findProvider">
type CatalogueProvider = GenaiPrices.Provider

/** True when some provider other than the free `local` could be priced from the catalogue. */
export const needsCatalogue = (providers: ReadonlyArray<ProviderSpec>): boolean =>
  providers.some((spec) => spec.adapter !== "local")

/** The catalogue's provider for a configured one: by vendor, else by name, else by its API's address. */
const catalogueProvider = (catalogue: Catalogue, spec: ProviderSpec): CatalogueProvider | undefined => {
  const vendor = VENDOR[spec.adapter]
  if (vendor !== undefined) return catalogue.findProvider({ providerId: vendor })
  return catalogue.findProvider({ providerId: spec.name }) ??
    catalogue.findProvider({ providerApiUrl: spec.baseUrl })
}

/** A model's price in the catalogue, as of `at`. */
const fromCatalogueOf = (
  catalogue: Catalogue,
  provider: CatalogueProvider,
  modelId: string,
  at: Date
): EffectivePrice => {
  const found = catalogue.calcPrice({}, modelId, { provider, timestamp: at })
  if (found === null) return UNKNOWN
  const price = fromCatalogue(found.model_price)
  return price === null ? UNKNOWN : { price, source: "catalogue", catalogueModel: found.model.id }
}

export class Prices extends Context.Service<Prices, {
  /** The effective price of `modelId` at the configured provider `provider`. */
  readonly of: (provider: string, modelId: string) => EffectivePrice
}>()("svc-gateway/Prices") {
  /** Over the providers and prices the settings' routing names. */
  static readonly layer = Layer.effect(
    Prices,
    Effect.gen(function*() {
      const config = yield* GatewayConfig
      const routing = yield* loadRouting(config.configFile)
      const catalogue = needsCatalogue(routing.providers)
        ? yield* Effect.promise(() => import("@pydantic/genai-prices"))
        : undefined
      return Prices.of(pricesOf(routing.providers, routing.prices, catalogue))
    })
  )
}

/**
 * The lookup over configured providers, a routing file's `prices` (provider name -> model glob -> price)
 * and the catalogue (none: only routing prices and `local` are known).
 */
export const pricesOf = (
  providers: ReadonlyArray<ProviderSpec>,
  overrides: Readonly<Record<string, Readonly<Record<string, PriceInput>>>>,
  catalogue: Catalogue | undefined,
  now: () => Date = () => new Date()
) => {
  const specs = new Map(providers.map((spec) => [spec.name, spec]))
  const own = new Map(
    Object.entries(overrides).map((
      [name, byModel]
    ) => [name, Object.entries(byModel).map(([glob, entry]) => [globToRegExp(glob), fromRouting(entry)] as const)])
  )
  // by provider, then model: looked up on every answer, so no key is built per request
  const known = new Map<string, Map<string, EffectivePrice>>()
  const catalogued = (spec: ProviderSpec | undefined, modelId: string): EffectivePrice => {
    if (spec === undefined || catalogue === undefined) return UNKNOWN
    const listed = catalogueProvider(catalogue, spec)
    return listed === undefined ? UNKNOWN : fromCatalogueOf(catalogue, listed, modelId, now())
  }
  const of = (provider: string, modelId: string): EffectivePrice => {
    let byModel = known.get(provider)
    if (byModel === undefined) known.set(provider, byModel = new Map())
    const cached = byModel.get(modelId)
    if (cached !== undefined) return cached
    const spec = specs.get(provider)
    const routed = own.get(provider)?.find(([glob]) => glob.test(modelId))?.[1]
    const effective: EffectivePrice = routed !== undefined
      ? { price: routed, source: "routing", catalogueModel: null }
      : spec?.adapter === "local"
      ? { price: FREE, source: "free", catalogueModel: null }
      : catalogued(spec, modelId)
    // a glob route passes the client's model name on: keep a bounded number of them
    if (byModel.size < MAX_MODELS_KEPT) byModel.set(modelId, effective)
    return effective
  }
  return { of }
}
