/**
 * The Vercel AI SDK's default OpenAI model (`createOpenAI(...)("model")`, which speaks the Responses
 * API) against the gateway: `generateText` and `streamText` with `local/echo`, and a tool the SDK runs
 * itself between two steps against a fake chat-completions upstream, so the function call goes out in the
 * Responses format and its output comes back in the next request.
 */
import { createOpenAI } from "@ai-sdk/openai"
import { generateText, stepCountIs, streamText, tool } from "ai"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { z } from "zod"
import {
  completion,
  fakeGatewayEnv,
  type FakeUpstream,
  reply,
  startFakeUpstream,
  toolCall,
  usage
} from "../utils/FakeUpstream.ts"
import { startGateway, type TestGateway } from "../utils/TestGateway.ts"

describe("the AI SDK's default OpenAI model through /v1/responses", () => {
  let gw: TestGateway
  let upstream: FakeUpstream
  let openai: ReturnType<typeof createOpenAI>

  beforeAll(async () => {
    upstream = await startFakeUpstream()
    gw = await startGateway(fakeGatewayEnv(upstream))
    openai = createOpenAI({ baseURL: `${gw.url}/v1`, apiKey: (await gw.newKey()).key })
  })
  afterAll(async () => {
    await gw?.close()
    await upstream?.close()
  })
  beforeEach(() => upstream.reset())

  it("generateText with local/echo: the text, the finish reason and usage", async () => {
    const result = await generateText({ model: openai("local/echo"), prompt: "Hello from the AI SDK", maxRetries: 0 })
    expect(result.text).toBe("Hello from the AI SDK")
    expect(result.finishReason).toBe("stop")
    expect(result.usage.outputTokens).toBe(5)
  })

  it("streamText with local/echo: the streamed text assembles", async () => {
    const result = streamText({ model: openai("local/echo"), prompt: "one two three", maxRetries: 0 })
    let text = ""
    for await (const piece of result.textStream) text += piece
    expect(text).toBe("one two three")
    expect(await result.finishReason).toBe("stop")
  })

  it("a tool the SDK runs: the call goes out, its output comes back in the next step, the model's answer ends it", async () => {
    let round = 0
    upstream.handle(() => {
      round++
      return round === 1
        ? reply.json(
          completion({ toolCalls: [toolCall("call_w", "get_weather", { city: "Oslo" })], usage: usage(12, 6) })
        )
        : reply.json(completion({ content: "It is sunny in Oslo.", usage: usage(20, 5) }))
    })
    const runs: Array<string> = []
    const weather = tool({
      description: "Current weather in a city",
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => {
        runs.push(city)
        return { sky: "sunny", city }
      }
    })
    const result = await generateText({
      model: openai("fake/gpt"),
      prompt: "Weather in Oslo?",
      tools: { get_weather: weather },
      stopWhen: stepCountIs(3),
      maxRetries: 0
    })
    expect(runs).toEqual(["Oslo"])
    expect(result.text).toBe("It is sunny in Oslo.")
    expect(result.steps.map((step) => step.finishReason)).toEqual(["tool-calls", "stop"])
    expect(result.steps[1]?.text).toBe("It is sunny in Oslo.")
    const second = upstream.requests[1]?.body.messages ?? []
    expect(second.map((message) => message["role"])).toEqual(["user", "assistant", "tool"])
    expect(second[2]).toMatchObject({ role: "tool", tool_call_id: "call_w", content: expect.stringContaining("sunny") })
  })
})
