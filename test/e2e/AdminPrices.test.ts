/**
 * `GET /admin/v1/prices` on a running gateway: every routable model with the effective price of its
 * target and where it comes from: the routing file's own, the bundled catalogue's, free for `local`, or
 * null when none is known. The admin token guards it like every admin route.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startGateway, type TestGateway, writeRouting } from "../utils/TestGateway.ts"

interface PriceRow {
  readonly model: string
  readonly provider: string
  readonly model_id: string
  readonly source: string | null
  readonly catalogue_model: string | null
  readonly price: null | {
    readonly input: { readonly base: number }
    readonly cached_input: { readonly base: number } | null
    readonly output: { readonly base: number }
  }
}

describe("GET /admin/v1/prices", () => {
  let gw: TestGateway

  beforeAll(async () => {
    const routing = writeRouting({
      providers: {
        openai: { adapter: "openai", base_url: "http://127.0.0.1:9/v1", models: ["gpt-4o"] },
        lab: {
          base_url: "http://127.0.0.1:9/v1",
          models: ["qwen-7b", "mystery"],
          prices: { "qwen-7b": { input: 0.1, output: 0.3 } }
        }
      },
      routes: [{ match: "team/fast", provider: "lab", model: "qwen-7b" }]
    })
    gw = await startGateway({ GATEWAY_CONFIG: routing })
  })
  afterAll(() => gw?.close())

  it("lists each routable model's price and its source", async () => {
    const listed = await gw.admin("GET", "/prices")
    expect(listed.status).toBe(200)
    expect(listed.json.object).toBe("list")
    const byModel = new Map((listed.json.data as ReadonlyArray<PriceRow>).map((row) => [row.model, row]))

    expect(byModel.get("openai/gpt-4o")).toMatchObject({
      provider: "openai",
      model_id: "gpt-4o",
      source: "catalogue",
      price: { input: { base: 2.5 }, cached_input: { base: 1.25 }, output: { base: 10 } }
    })
    expect(byModel.get("lab/qwen-7b")).toMatchObject({
      source: "routing",
      price: { input: { base: 0.1 }, cached_input: null, output: { base: 0.3 } }
    })
    // a route's address is priced as the target it resolves to
    expect(byModel.get("team/fast")).toMatchObject({ provider: "lab", model_id: "qwen-7b", source: "routing" })
    expect(byModel.get("lab/mystery")).toMatchObject({ source: null, price: null, catalogue_model: null })
    expect(byModel.get("local/echo")).toMatchObject({ source: "free", price: { input: { base: 0 } } })
  })

  it("needs the admin token", async () => {
    const response = await fetch(`${gw.url}/admin/v1/prices`)
    expect(response.status).toBe(401)
  })
})
