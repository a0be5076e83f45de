/**
 * The Responses API against a server that serves chat completions only (older vLLM, llama.cpp,
 * DeepSeek, Mistral behind `OPENAI_BASE_URL`): its 404 (or 405) to `/responses` sends the request as
 * chat completions instead, whole and streamed, tool calls included, and the provider is remembered as
 * chat-only; `responses: false` in the routing file says so up front; OpenAI's own 404 for an unknown
 * model is the client's answer, not a reason to try chat completions.
 */
import OpenAI from "openai"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import {
  completion,
  fakeGatewayEnv,
  type FakeUpstream,
  reply,
  startFakeUpstream,
  textStream,
  toolCall
} from "../utils/FakeUpstream.ts"
import { startGateway, type TestGateway } from "../utils/TestGateway.ts"

const tools: Array<OpenAI.Responses.Tool> = [{
  type: "function",
  name: "exec_command",
  description: "Runs a command",
  strict: false,
  parameters: { type: "object", properties: { cmd: { type: "string" } }, required: ["cmd"] }
}]

describe("Responses clients on a chat-completions-only server", () => {
  let upstream: FakeUpstream
  let gw: TestGateway
  let client: OpenAI

  beforeAll(async () => {
    upstream = await startFakeUpstream()
    const base = { adapter: "openai", base_url: `${upstream.url}/v1`, api_key_env: "FAKE_KEY" }
    gw = await startGateway(fakeGatewayEnv(upstream, {
      // one provider per test: a provider found chat-only stays so
      providers: { found: base, declared: { ...base, responses: false }, another: base, openai: base }
    }))
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: (await gw.newKey()).key, maxRetries: 0, timeout: 15_000 })
  })
  afterAll(async () => {
    await gw?.close()
    await upstream?.close()
  })
  beforeEach(() => upstream.reset())

  /** A vLLM-like server: no route for /responses; chat completions answer with `answer`. */
  const chatOnly = (answer: () => ReturnType<typeof reply.json>) =>
    upstream.handle((request) =>
      request.path.endsWith("/responses") ? reply.json({ detail: "Not Found" }, 404) : answer()
    )

  const paths = () => upstream.requests.map((request) => request.path)

  it("whole: the 404 to /responses becomes a chat completion; later requests go to chat completions at once", async () => {
    chatOnly(() => reply.json(completion({ toolCalls: [toolCall("call_1", "exec_command", { cmd: "ls" })] })))
    const first = await client.responses.create({ model: "found/m", input: "list the files", tools, store: false })
    expect(first.status).toBe("completed")
    expect(first.output).toEqual([
      expect.objectContaining({
        type: "function_call",
        name: "exec_command",
        call_id: "call_1",
        arguments: "{\"cmd\":\"ls\"}"
      })
    ])
    expect(paths()).toEqual(["/v1/responses", "/v1/chat/completions"])
    // the chat request carries the conversation and the client's tool, in chat's shape
    const sent = upstream.last().body
    expect(sent.messages).toEqual([{ role: "user", content: "list the files" }])
    expect((sent.tools as Array<{ function: { name: string } }>).map((tool) => tool.function.name)).toEqual([
      "exec_command"
    ])

    upstream.reset()
    chatOnly(() => reply.json(completion({ content: "done" })))
    const second = await client.responses.create({ model: "found/m", input: "again", store: false })
    expect(second.output_text).toBe("done")
    expect(paths()).toEqual(["/v1/chat/completions"])
  })

  it("streamed: the same, the chat stream's text as the Responses stream's events", async () => {
    chatOnly(() => reply.sse(textStream(["Hel", "lo"])))
    const stream = await client.responses.create({ model: "another/m", input: "hi", stream: true, store: false })
    const types: Array<string> = []
    let text = ""
    for await (const event of stream) {
      types.push(event.type)
      if (event.type === "response.output_text.delta") text += event.delta
    }
    expect(text).toBe("Hello")
    expect(types[0]).toBe("response.created")
    expect(types.at(-1)).toBe("response.completed")
    expect(paths()).toEqual(["/v1/responses", "/v1/chat/completions"])
  })

  it("responses: false in the routing file: chat completions from the first request", async () => {
    chatOnly(() => reply.json(completion({ content: "straight to chat" })))
    const response = await client.responses.create({ model: "declared/m", input: "hi", store: false })
    expect(response.output_text).toBe("straight to chat")
    expect(paths()).toEqual(["/v1/chat/completions"])
  })

  it("OpenAI's 404 for an unknown model is the client's answer, and /responses stays in use", async () => {
    upstream.handle((request) =>
      request.path.endsWith("/responses")
        ? reply.error(404, "The model `nope` does not exist or you do not have access to it.", {
          code: "model_not_found"
        })
        : reply.json(completion({ content: "chat" }))
    )
    const refused = await client.responses.create({ model: "openai/nope", input: "hi", store: false }).catch((
      error: unknown
    ) => error)
    expect(refused).toBeInstanceOf(OpenAI.NotFoundError)
    expect(paths()).toEqual(["/v1/responses"])
    upstream.reset()
    upstream.handle(() => reply.json({ detail: "Not Found" }, 404))
    await client.responses.create({ model: "openai/gpt-x", input: "hi", store: false }).catch(() => undefined)
    // still tried first: the unknown model did not make the provider chat-only
    expect(paths()[0]).toBe("/v1/responses")
  })
})

describe("the routing file's responses setting", () => {
  it("is refused on an adapter other than openai, naming the provider", async () => {
    const upstream = await startFakeUpstream()
    try {
      await expect(startGateway(fakeGatewayEnv(upstream, {
        providers: { groq: { adapter: "openai-compatible", base_url: `${upstream.url}/v1`, responses: false } }
      }))).rejects.toThrow(/provider 'groq': 'responses' applies to the openai adapter only/)
    } finally {
      await upstream.close()
    }
  })
})
