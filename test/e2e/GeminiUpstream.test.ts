/**
 * A Gemini target through the gateway, over HTTP to a fake Gemini API on 127.0.0.1: the key in
 * `x-goog-api-key`, the model in the path; a function call round trip (the tool's result goes back as a
 * `functionResponse` named after its call, in a user turn); a blocked prompt is a `content_filter` answer;
 * Gemini's errors keep their status and message, and a 429 or 503 fails over to the next target.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { completion, fakeGatewayEnv, type FakeUpstream, reply, startFakeUpstream } from "../utils/FakeUpstream.ts"
import { postChat, startGateway, type TestGateway } from "../utils/TestGateway.ts"

const answer = (parts: ReadonlyArray<Record<string, unknown>>, finishReason = "STOP") => ({
  candidates: [{ content: { role: "model", parts }, finishReason, index: 0 }],
  usageMetadata: { promptTokenCount: 8, candidatesTokenCount: 4, totalTokenCount: 12 },
  modelVersion: "gemini-2.5-flash-001"
})
const geminiError = (status: number, code: string, message: string) =>
  reply.json({ error: { code: status, message, status: code } }, status)

describe("a Gemini target", () => {
  let gemini: FakeUpstream
  let backup: FakeUpstream
  let gw: TestGateway
  let key: string

  beforeAll(async () => {
    gemini = await startFakeUpstream()
    backup = await startFakeUpstream()
    gw = await startGateway(fakeGatewayEnv(backup, {
      providers: { google: { adapter: "gemini", base_url: `${gemini.url}/v1beta`, api_key_env: "FAKE_GEMINI_KEY" } },
      fallbacks: { "google/gemini-2.5-flash": ["fake/backup-model"] },
      env: { FAKE_GEMINI_KEY: "g-secret" }
    }))
    key = (await gw.newKey()).key
  })
  afterAll(async () => {
    await gw?.close()
    await gemini?.close()
    await backup?.close()
  })
  beforeEach(() => {
    gemini.reset()
    backup.reset()
  })

  const ask = (body: Record<string, unknown>) =>
    postChat(gw.url, { model: "google/gemini-2.5-flash", ...body }, { key })

  it("a function call round trip: the call, then its result as a functionResponse named after it", async () => {
    gemini.handle(() =>
      reply.json(
        answer([{ functionCall: { name: "get_weather", args: { city: "Paris" } }, thoughtSignature: "sig-1" }])
      )
    )
    const tools = [{
      type: "function",
      function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } }
    }]
    const first = await (await ask({ messages: [{ role: "user", content: "Weather in Paris?" }], tools })).json() as {
      choices: Array<
        {
          message: {
            tool_calls: Array<{ id: string; function: { name: string; arguments: string } }>
            thinking_blocks?: unknown
          }
          finish_reason: string
        }
      >
    }
    const request = gemini.last()
    expect(request.path).toBe("/v1beta/models/gemini-2.5-flash:generateContent")
    expect(request.headers["x-goog-api-key"]).toBe("g-secret")
    const call = first.choices[0]!.message.tool_calls[0]!
    expect(first.choices[0]?.finish_reason).toBe("tool_calls")
    expect([call.function.name, JSON.parse(call.function.arguments)]).toEqual(["get_weather", { city: "Paris" }])

    gemini.handle(() => reply.json(answer([{ text: "Sunny." }])))
    const second = await (await ask({
      tools,
      messages: [
        { role: "user", content: "Weather in Paris?" },
        first.choices[0]!.message,
        { role: "tool", tool_call_id: call.id, content: "{\"sky\":\"sunny\"}" }
      ]
    })).json() as { choices: Array<{ message: { content: string } }> }
    expect(second.choices[0]?.message.content).toBe("Sunny.")
    expect(gemini.last().body["contents"]).toEqual([
      { role: "user", parts: [{ text: "Weather in Paris?" }] },
      {
        role: "model",
        parts: [{ functionCall: { name: "get_weather", args: { city: "Paris" } }, thoughtSignature: "sig-1" }]
      },
      { role: "user", parts: [{ functionResponse: { name: "get_weather", response: { sky: "sunny" } } }] }
    ])
  })

  it("a blocked prompt is an empty answer finished by content_filter", async () => {
    gemini.handle(() =>
      reply.json({
        promptFeedback: { blockReason: "SAFETY" },
        usageMetadata: { promptTokenCount: 5, totalTokenCount: 5 }
      })
    )
    const body = await (await ask({ messages: [{ role: "user", content: "something blocked" }] })).json() as {
      choices: Array<{ finish_reason: string; message: { content: string } }>
    }
    expect(body.choices[0]).toMatchObject({ finish_reason: "content_filter", message: { content: "" } })
  })

  it("a 400 keeps Gemini's status and message; a 503 fails over to the next target", async () => {
    gemini.handle(() => geminiError(400, "INVALID_ARGUMENT", "Invalid JSON payload received."))
    const refused = await ask({ messages: [{ role: "user", content: "x" }] })
    expect(refused.status).toBe(400)
    expect(await refused.json()).toMatchObject({
      error: { message: expect.stringContaining("Invalid JSON payload received.") }
    })
    expect(backup.requests).toHaveLength(0)

    gemini.handle(() => geminiError(503, "UNAVAILABLE", "The model is overloaded."))
    backup.handle(() => reply.json(completion({ content: "from the backup" })))
    const failedOver = await (await ask({ messages: [{ role: "user", content: "x" }] })).json() as {
      choices: Array<{ message: { content: string } }>
    }
    expect(failedOver.choices[0]?.message.content).toBe("from the backup")
  })

  it("a stream ends with the event that carries the finish reason", async () => {
    gemini.handle(() =>
      reply.sse([
        { candidates: [{ content: { role: "model", parts: [{ text: "Hel" }] } }] },
        answer([{ text: "lo" }])
      ], { end: "end" })
    )
    const response = await ask({
      messages: [{ role: "user", content: "hi" }],
      stream: true,
      stream_options: { include_usage: true }
    })
    const text = await response.text()
    expect(gemini.last().path).toBe("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse")
    expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true)
    expect(text).toContain("\"finish_reason\":\"stop\"")
    expect(text).toContain("\"total_tokens\":12")
  })
})
