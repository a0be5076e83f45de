/**
 * The Responses stream encoder, driven as the pipeline drives it: the core's chunks in, OpenAI's events
 * out, golden: reasoning (summary text, then its encrypted content), text, two function calls, the last
 * event with the whole response and usage; an answer cut by the token limit ends `response.incomplete`;
 * a failure after the start is `response.failed`.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import type { Outcome } from "../../../src/core/Outcome.ts"
import { encodeResponseStream, responsesStreamError } from "../../../src/dialects/responses/ResponsesStream.ts"
import type { CompletionChunk } from "../../../src/kernel/Canonical.ts"
import type { ChatCall } from "../../../src/kernel/ChatCall.ts"
import { pullOnce } from "../../../src/kernel/ChunkPull.ts"

const identity = { id: "resp_1", created: 100, model: "openai/gpt-5" }
const call: ChatCall = {
  model: "openai/gpt-5",
  messages: [{ role: "user", content: "hi" }],
  maxTokens: undefined,
  stream: true,
  includeUsage: true,
  streamOptions: {},
  tools: undefined,
  toolChoice: undefined,
  svcToolIds: [],
  svcPendingId: undefined,
  tags: [],
  passthrough: {},
  native: { format: "openai-responses", body: { model: "openai/gpt-5", input: "hi", stream: true }, headers: {} }
}
const usage = { promptTokens: 10, completionTokens: 8, totalTokens: 18, cachedTokens: 4, reasoningTokens: 3 }
const outcome = (): Outcome => ({
  usage,
  attempts: 1,
  rounds: 1,
  toolRuns: [],
  svcPendingId: undefined,
  provider: "p",
  model: "m",
  dropped: [],
  cost: null
})

const chunkOf = (delta: Record<string, unknown>, finish: string | null = null): CompletionChunk => ({
  model: "m",
  choices: [{ index: 0, delta, finish_reason: finish }],
  usage: undefined,
  extra: {}
})

/** Every event the encoder writes for `chunks`, parsed, with the item ids replaced by their kind. */
const encode = (chunks: ReadonlyArray<CompletionChunk>): Array<Record<string, unknown>> => {
  const frames: Array<string> = []
  const pull = encodeResponseStream(identity, call, { chunks: pullOnce(chunks), outcome })
  Effect.runSync(
    Effect.catchCause(Effect.forever(Effect.map(pull, (batch) => void frames.push(...batch))), () => Effect.void)
  )
  return frames.join("").split("\n\n").filter((frame) => frame !== "").map((frame) => {
    const [head, data] = frame.split("\n")
    const json = JSON.parse(data!.slice(6)) as Record<string, unknown>
    expect(head).toBe(`event: ${String(json["type"])}`)
    return JSON.parse(JSON.stringify(json).replace(/"(rs|msg|fc)_[0-9A-Za-z]{24}"/g, "\"$1_id\"")) as Record<
      string,
      unknown
    >
  })
}

describe("the Responses stream", () => {
  it("reasoning, text and two function calls, in OpenAI's order with sequence numbers", () => {
    const events = encode([
      chunkOf({ role: "assistant", reasoning_content: "Think" }),
      chunkOf({ reasoning_content: "ing." }),
      chunkOf({ reasoning_signature: "enc-1" }),
      chunkOf({ content: "Let me " }),
      chunkOf({ content: "check." }),
      chunkOf({ tool_calls: [{ index: 0, id: "call_a", type: "function", function: { name: "ls", arguments: "" } }] }),
      chunkOf({ tool_calls: [{ index: 0, function: { arguments: "{}" } }] }),
      chunkOf({
        tool_calls: [{ index: 1, id: "call_b", type: "function", function: { name: "pwd", arguments: "{}" } }]
      }, "tool_calls")
    ])
    expect(events.map((event) => event["sequence_number"])).toEqual(events.map((_, i) => i))
    const strip = events.map(({ sequence_number: _, response: __, ...rest }) => rest)
    const reasoning = {
      id: "rs_id",
      type: "reasoning",
      summary: [{ type: "summary_text", text: "Thinking." }],
      encrypted_content: "enc-1"
    }
    const message = {
      id: "msg_id",
      type: "message",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: "Let me check.", annotations: [] }]
    }
    const callA = {
      id: "fc_id",
      type: "function_call",
      status: "completed",
      arguments: "{}",
      call_id: "call_a",
      name: "ls"
    }
    const callB = { ...callA, call_id: "call_b", name: "pwd" }
    expect(strip).toEqual([
      { type: "response.created" },
      { type: "response.in_progress" },
      { type: "response.output_item.added", output_index: 0, item: { id: "rs_id", type: "reasoning", summary: [] } },
      {
        type: "response.reasoning_summary_part.added",
        item_id: "rs_id",
        output_index: 0,
        summary_index: 0,
        part: { type: "summary_text", text: "" }
      },
      {
        type: "response.reasoning_summary_text.delta",
        item_id: "rs_id",
        output_index: 0,
        summary_index: 0,
        delta: "Think"
      },
      {
        type: "response.reasoning_summary_text.delta",
        item_id: "rs_id",
        output_index: 0,
        summary_index: 0,
        delta: "ing."
      },
      {
        type: "response.reasoning_summary_text.done",
        item_id: "rs_id",
        output_index: 0,
        summary_index: 0,
        text: "Thinking."
      },
      {
        type: "response.reasoning_summary_part.done",
        item_id: "rs_id",
        output_index: 0,
        summary_index: 0,
        part: { type: "summary_text", text: "Thinking." }
      },
      { type: "response.output_item.done", output_index: 0, item: reasoning },
      {
        type: "response.output_item.added",
        output_index: 1,
        item: { id: "msg_id", type: "message", status: "in_progress", role: "assistant", content: [] }
      },
      {
        type: "response.content_part.added",
        item_id: "msg_id",
        output_index: 1,
        content_index: 0,
        part: { type: "output_text", text: "", annotations: [] }
      },
      {
        type: "response.output_text.delta",
        item_id: "msg_id",
        output_index: 1,
        content_index: 0,
        delta: "Let me ",
        logprobs: []
      },
      {
        type: "response.output_text.delta",
        item_id: "msg_id",
        output_index: 1,
        content_index: 0,
        delta: "check.",
        logprobs: []
      },
      {
        type: "response.output_text.done",
        item_id: "msg_id",
        output_index: 1,
        content_index: 0,
        text: "Let me check.",
        logprobs: []
      },
      {
        type: "response.content_part.done",
        item_id: "msg_id",
        output_index: 1,
        content_index: 0,
        part: { type: "output_text", text: "Let me check.", annotations: [] }
      },
      { type: "response.output_item.done", output_index: 1, item: message },
      { type: "response.output_item.added", output_index: 2, item: { ...callA, status: "in_progress", arguments: "" } },
      { type: "response.function_call_arguments.delta", item_id: "fc_id", output_index: 2, delta: "{}" },
      { type: "response.function_call_arguments.done", item_id: "fc_id", output_index: 2, name: "ls", arguments: "{}" },
      { type: "response.output_item.done", output_index: 2, item: callA },
      { type: "response.output_item.added", output_index: 3, item: { ...callB, status: "in_progress", arguments: "" } },
      { type: "response.function_call_arguments.delta", item_id: "fc_id", output_index: 3, delta: "{}" },
      {
        type: "response.function_call_arguments.done",
        item_id: "fc_id",
        output_index: 3,
        name: "pwd",
        arguments: "{}"
      },
      { type: "response.output_item.done", output_index: 3, item: callB },
      { type: "response.completed" }
    ])
    expect(events[0]?.["response"]).toMatchObject({
      id: "resp_1",
      object: "response",
      created_at: 100,
      status: "in_progress",
      model: "openai/gpt-5",
      output: [],
      usage: null
    })
    expect(events.at(-1)?.["response"]).toMatchObject({
      id: "resp_1",
      status: "completed",
      output: [reasoning, message, callA, callB],
      usage: {
        input_tokens: 10,
        input_tokens_details: { cached_tokens: 4 },
        output_tokens: 8,
        output_tokens_details: { reasoning_tokens: 3 },
        total_tokens: 18
      }
    })
  })

  it("an answer cut by the token limit ends response.incomplete; an empty answer still starts and ends", () => {
    const cut = encode([chunkOf({ content: "Partial" }, "length")])
    expect(cut.at(-1)).toMatchObject({
      type: "response.incomplete",
      response: { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } }
    })
    expect(encode([]).map((event) => event["type"])).toEqual([
      "response.created",
      "response.in_progress",
      "response.completed"
    ])
  })

  it("a failure after the start: response.failed with the error's code and message", () => {
    const frame = responsesStreamError({
      status: 502,
      type: "upstream_error",
      code: "upstream_error",
      param: null,
      message: "upstream broke",
      extra: {}
    }, identity)
    expect(frame.startsWith("event: response.failed\ndata: ")).toBe(true)
    expect(JSON.parse(frame.slice(frame.indexOf("data: ") + 6))).toMatchObject({
      type: "response.failed",
      response: { id: "resp_1", status: "failed", error: { code: "upstream_error", message: "upstream broke" } }
    })
  })
})
