/**
 * Every inbound format (chat completions, Anthropic Messages, the Responses API) to every upstream
 * format (OpenAI-compatible chat, OpenAI Responses, Anthropic, Gemini, `local`), whole and streamed: a
 * text answer and a tool call each reach the client in its own shape, and the upstream receives its own
 * format with the model id rewritten and the client's tool present.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { fakeGatewayEnv, type FakeUpstream, startFakeUpstream } from "../utils/FakeUpstream.ts"
import { postChat, sseData, startGateway, type TestGateway } from "../utils/TestGateway.ts"
import { type Answer, CITY, type Json, SCHEMA, TEXT, upstreamProviders, upstreams } from "../utils/UpstreamFormats.ts"

// ---------------------------------------------------------------- client formats

interface Client {
  readonly name: string
  readonly ask: (gw: TestGateway, key: string, model: string, prompt: string, stream: boolean) => Promise<Answer>
}

const argsOf = (text: string): unknown => JSON.parse(text === "" ? "{}" : text)

const clients: ReadonlyArray<Client> = [
  {
    name: "chat completions",
    ask: async (gw, key, model, prompt, stream) => {
      const response = await postChat(gw.url, {
        model,
        stream,
        messages: [{ role: "user", content: prompt }],
        tools: [{ type: "function", function: { name: "get_weather", parameters: SCHEMA } }]
      }, { key })
      expect(response.status, await response.clone().text()).toBe(200)
      if (!stream) {
        const body = await response.json() as {
          choices: Array<
            {
              message: { content: string | null; tool_calls?: Array<{ function: { name: string; arguments: string } }> }
            }
          >
        }
        const message = body.choices[0]!.message
        const call = message.tool_calls?.[0]
        return {
          text: message.content ?? "",
          call: call && { name: call.function.name, args: argsOf(call.function.arguments) }
        }
      }
      let text = ""
      let name = ""
      let args = ""
      for (const data of sseData(await response.text())) {
        if (data === "[DONE]") continue
        const delta = (JSON.parse(data) as { choices: Array<{ delta: Json }> }).choices[0]?.delta ?? {}
        if (typeof delta["content"] === "string") text += delta["content"]
        for (
          const piece of (delta["tool_calls"] ?? []) as Array<{ function?: { name?: string; arguments?: string } }>
        ) {
          name += piece.function?.name ?? ""
          args += piece.function?.arguments ?? ""
        }
      }
      return { text, call: name === "" ? undefined : { name, args: argsOf(args) } }
    }
  },
  {
    name: "Anthropic Messages",
    ask: async (gw, key, model, prompt, stream) => {
      const response = await postChat(gw.url, {
        model,
        stream,
        max_tokens: 100,
        messages: [{ role: "user", content: prompt }],
        tools: [{ name: "get_weather", input_schema: SCHEMA }]
      }, { path: "/v1/messages", headers: { "x-api-key": key } })
      expect(response.status, await response.clone().text()).toBe(200)
      if (!stream) {
        const body = await response.json() as { content: Array<Json> }
        const tool = body.content.find((block) => block["type"] === "tool_use")
        return {
          text: body.content.filter((block) => block["type"] === "text").map((block) => block["text"]).join(""),
          call: tool && { name: String(tool["name"]), args: tool["input"] }
        }
      }
      let text = ""
      let name = ""
      let args = ""
      for (const data of sseData(await response.text())) {
        const event = JSON.parse(data) as Json
        const block = event["content_block"] as Json | undefined
        const delta = event["delta"] as Json | undefined
        if (block?.["type"] === "tool_use") name = String(block["name"])
        if (delta?.["type"] === "text_delta") text += String(delta["text"])
        if (delta?.["type"] === "input_json_delta") args += String(delta["partial_json"])
      }
      return { text, call: name === "" ? undefined : { name, args: argsOf(args) } }
    }
  },
  {
    name: "Responses",
    ask: async (gw, key, model, prompt, stream) => {
      const response = await postChat(gw.url, {
        model,
        stream,
        input: prompt,
        tools: [{ type: "function", name: "get_weather", parameters: SCHEMA }]
      }, { key, path: "/v1/responses" })
      expect(response.status, await response.clone().text()).toBe(200)
      const output: Array<Json> = []
      if (!stream) output.push(...(await response.json() as { output: Array<Json> }).output)
      else {
        const events = sseData(await response.text()).map((data) => JSON.parse(data) as Json)
        expect(events.at(-1)?.["type"]).toBe("response.completed")
        for (const event of events) {
          if (event["type"] === "response.output_item.done") output.push(event["item"] as Json)
        }
      }
      const call = output.find((item) => item["type"] === "function_call")
      const text = output.filter((item) => item["type"] === "message")
        .flatMap((item) => (item["content"] as Array<Json>).map((part) => String(part["text"] ?? ""))).join("")
      return { text, call: call && { name: String(call["name"]), args: argsOf(String(call["arguments"])) } }
    }
  }
]

describe("every inbound format to every upstream format", () => {
  let gw: TestGateway
  let upstream: FakeUpstream
  let key: string

  beforeAll(async () => {
    upstream = await startFakeUpstream()
    gw = await startGateway(fakeGatewayEnv(upstream, {
      providers: upstreamProviders(upstream.url)
    }))
    key = (await gw.newKey()).key
  })
  afterAll(async () => {
    await gw?.close()
    await upstream?.close()
  })
  beforeEach(() => upstream.reset())

  for (const client of clients) {
    for (const target of upstreams) {
      for (const stream of [false, true]) {
        const mode = stream ? "streamed" : "whole"
        it(`${client.name} → ${target.name}, ${mode}: a text answer`, async () => {
          const textReply = target.reply("text", stream)
          if (textReply !== undefined) upstream.handle(() => textReply)
          const answer = await client.ask(gw, key, target.model, TEXT, stream)
          expect(answer).toEqual({ text: TEXT, call: undefined })
          if (textReply !== undefined) {
            const received = target.received(upstream.last())
            expect(received.model).toBe(target.model.split("/")[1])
            expect(received.tools).toEqual(["get_weather"])
          }
        })
        it(`${client.name} → ${target.name}, ${mode}: a tool call`, async () => {
          const toolReply = target.reply("tool", stream)
          if (toolReply !== undefined) upstream.handle(() => toolReply)
          const answer = await client.ask(gw, key, target.model, `call get_weather ${JSON.stringify(CITY)}`, stream)
          expect(answer.call).toEqual({ name: "get_weather", args: CITY })
        })
      }
    }
  }
})
