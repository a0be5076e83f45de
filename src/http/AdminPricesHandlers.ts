/**
 * `GET /admin/v1/prices`: every routable model (`GET /v1/models`' list) with the effective price of the
 * target it resolves to first. Apart from `AdminHandlers.ts` because it reads the routing, which the
 * CLI on the local store does not load.
 */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { AdminApi } from "../admin/AdminApi.ts"
import type { ModelPriceInfo } from "../admin/AdminResources.ts"
import type { ModelPrice, Rate } from "../prices/ModelPrice.ts"
import { Prices } from "../prices/Prices.ts"
import { Providers } from "../providers/Providers.ts"

const rate = (value: Rate) => ({ base: value.base, tiers: value.tiers })
const rateOrNull = (value: Rate | null) => value === null ? null : rate(value)

const tokenPrices = (price: ModelPrice) => ({
  input: rate(price.input),
  cached_input: rateOrNull(price.cachedInput),
  cache_write: rateOrNull(price.cacheWrite),
  cache_write_1h: rateOrNull(price.cacheWrite1h),
  output: rate(price.output)
})

export const PricesHandlers = HttpApiBuilder.group(AdminApi, "prices", (handlers) =>
  Effect.gen(function*() {
    const providers = yield* Providers
    const prices = yield* Prices
    return handlers.handle("list", () =>
      Effect.gen(function*() {
        const data: Array<ModelPriceInfo> = []
        for (const model of providers.models()) {
          const targets = yield* providers.resolve(model.id).pipe(Effect.orElseSucceed(() => []))
          const target = targets[0]
          if (target === undefined) continue
          const effective = prices.of(target.provider.name, target.modelId)
          data.push({
            model: model.id,
            provider: target.provider.name,
            model_id: target.modelId,
            source: effective.source,
            catalogue_model: effective.catalogueModel,
            price: effective.price === null ? null : tokenPrices(effective.price)
          })
        }
        return { object: "list" as const, data }
      }))
  }))
