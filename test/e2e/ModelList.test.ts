/**
 * `GET /v1/models` with providers from the environment alone: each one's own list (OpenAI's `/models`,
 * Anthropic's `/v1/models`, Gemini's `/models`), fetched in the background at start and refreshed; a
 * provider that is down or refuses changes nothing but its own absence, and never delays start-up.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type FakeUpstream, refusedUrl, reply, startFakeUpstream } from "../utils/FakeUpstream.ts"
import { startGateway, type TestGateway } from "../utils/TestGateway.ts"

describe("GET /v1/models lists what providers from the environment serve", () => {
  let upstream: FakeUpstream
  let gw: TestGateway
  let key: string
  let round = 0

  beforeAll(async () => {
    upstream = await startFakeUpstream((request) => {
      const path = request.path.split("?")[0]
      if (path === "/v1/models" && request.headers["authorization"] === "Bearer sk-openai") {
        round++
        return reply.json({
          object: "list",
          data: [{ id: "gpt-4o", object: "model" }, { id: round === 1 ? "o3" : "o4", object: "model" }]
        })
      }
      if (path === "/v1/models" && request.headers["x-api-key"] === "sk-ant") {
        return reply.json({ data: [{ id: "claude-sonnet-4-5", type: "model" }], has_more: false })
      }
      if (path === "/v1beta/models" && request.headers["x-goog-api-key"] === "g-key") {
        return reply.json({
          models: [
            { name: "models/gemini-2.5-flash", supportedGenerationMethods: ["generateContent", "countTokens"] },
            { name: "models/text-embedding-004", supportedGenerationMethods: ["embedContent"] }
          ]
        })
      }
      return reply.error(401, "bad key")
    })
    gw = await startGateway({
      OPENAI_API_KEY: "sk-openai",
      OPENAI_BASE_URL: `${upstream.url}/v1`,
      ANTHROPIC_API_KEY: "sk-ant",
      ANTHROPIC_BASE_URL: upstream.url,
      GEMINI_API_KEY: "g-key",
      GEMINI_BASE_URL: `${upstream.url}/v1beta`,
      // one that refuses and one that is down: the gateway starts all the same
      MISTRAL_API_KEY: "wrong",
      MISTRAL_BASE_URL: `${upstream.url}/v1`,
      GROQ_API_KEY: "x",
      GROQ_BASE_URL: await refusedUrl(),
      GATEWAY_MODELS_REFRESH: "1 second"
    })
    key = (await gw.newKey()).key
  })
  afterAll(async () => {
    await gw?.close()
    await upstream?.close()
  })

  const listed = async (): Promise<ReadonlyArray<string>> => {
    const response = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })
    expect(response.status).toBe(200)
    return ((await response.json()) as { data: Array<{ id: string }> }).data.map((model) => model.id)
  }

  it("each provider's own list under its author; the refused and the unreachable add nothing", async () => {
    await expect.poll(listed, { timeout: 10_000 }).toEqual(expect.arrayContaining([
      "local/echo",
      "openai/gpt-4o",
      "anthropic/claude-sonnet-4-5",
      "google/gemini-2.5-flash"
    ]))
    const ids = await listed()
    expect(ids).not.toContain("google/text-embedding-004")
    expect(ids.some((id) => id.startsWith("mistral/") || id.startsWith("groq/"))).toBe(false)
  })

  it("refreshed: a model the provider adds later appears", async () => {
    await expect.poll(listed, { timeout: 10_000 }).toContain("openai/o4")
  })
})
