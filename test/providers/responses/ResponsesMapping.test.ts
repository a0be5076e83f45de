/**
 * The Responses upstream's mapping: a call from another format written as a Responses request, the
 * client's own Responses request kept as sent (the loop's turns and shared tools appended), and answers
 * read back, whole and streamed, from the documented shapes.
 */
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import type { ProviderCall } from "../../../src/providers/Provider.ts"
import { droppedFields, requestBody } from "../../../src/providers/responses/ResponsesRequest.ts"
import { decodeResponse, streamDecoder } from "../../../src/providers/responses/ResponsesResponse.ts"

const call = (overrides: Partial<ProviderCall> = {}): ProviderCall => ({
  modelId: "gpt-5",
  messages: [{ role: "user", content: "hi" }],
  tools: undefined,
  toolChoice: undefined,
  maxTokens: undefined,
  passthrough: {},
  requestId: "req_1",
  ...overrides
})

const ls = {
  type: "function" as const,
  function: { name: "ls", description: "List", parameters: { type: "object", properties: {} } }
}

describe("a call from another format", () => {
  it("messages as input items: thinking signed by Responses as reasoning, calls and their outputs, images", () => {
    expect(requestBody(
      call({
        messages: [
          { role: "system", content: "Be brief." },
          {
            role: "user",
            content: [{ type: "text", text: "Look" }, { type: "image_url", image_url: { url: "https://x/y.png" } }]
          },
          {
            role: "assistant",
            content: "Listing.",
            tool_calls: [{ id: "call_1", type: "function", function: { name: "ls", arguments: "{}" } }],
            thinking_blocks: [{ type: "thinking", thinking: "Plan.", signature: "enc-1" }, {
              type: "thinking",
              thinking: "unsigned",
              signature: ""
            }]
          },
          { role: "tool", tool_call_id: "call_1", content: "a.txt" }
        ],
        tools: [ls],
        toolChoice: "required",
        maxTokens: 64,
        passthrough: {
          temperature: 0,
          seed: 1,
          stop: ["x"],
          response_format: { type: "json_object" },
          parallel_tool_calls: false
        }
      }),
      true
    )).toEqual({
      model: "gpt-5",
      input: [
        { type: "message", role: "system", content: [{ type: "input_text", text: "Be brief." }] },
        {
          type: "message",
          role: "user",
          content: [{ type: "input_text", text: "Look" }, {
            type: "input_image",
            image_url: "https://x/y.png",
            detail: "auto"
          }]
        },
        { type: "reasoning", summary: [{ type: "summary_text", text: "Plan." }], encrypted_content: "enc-1" },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Listing." }] },
        { type: "function_call", call_id: "call_1", name: "ls", arguments: "{}" },
        { type: "function_call_output", call_id: "call_1", output: "a.txt" }
      ],
      store: false,
      stream: true,
      temperature: 0,
      parallel_tool_calls: false,
      max_output_tokens: 64,
      text: { format: { type: "json_object" } },
      tools: [{
        type: "function",
        name: "ls",
        description: "List",
        parameters: { type: "object", properties: {} },
        strict: false
      }],
      tool_choice: "required"
    })
    expect(droppedFields(call({ passthrough: { seed: 1, stop: ["x"], temperature: 0 } }))).toEqual(["seed", "stop"])
  })
})

describe("the client's own Responses request", () => {
  const body = {
    model: "openai/gpt-5-codex",
    input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "go" }] }],
    tools: [{ type: "function", name: "exec_command", parameters: { type: "object" } }, { type: "web_search" }],
    include: ["reasoning.encrypted_content"],
    store: false,
    stream: true
  }
  const native = { request: { format: "openai-responses" as const, body, headers: {} }, clientTurns: 1 }

  it("goes as sent but for the model; it drops nothing", () => {
    const theCall = call({ modelId: "gpt-5-codex", native, messages: [{ role: "user", content: "go" }] })
    expect(requestBody(theCall, true)).toEqual({ ...body, model: "gpt-5-codex" })
    expect(droppedFields(theCall)).toEqual([])
  })

  it("the shared tools it lacks and the loop's turns are appended; the client's body is not changed", () => {
    const svc = {
      type: "function" as const,
      function: { name: "svc_current_time", parameters: { type: "object", properties: {} } }
    }
    const sent = requestBody(
      call({
        native,
        tools: [{ type: "function", function: { name: "exec_command", parameters: { type: "object" } } }, svc],
        toolChoice: "auto",
        messages: [
          { role: "user", content: "go" },
          {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "call_t", type: "function", function: { name: "svc_current_time", arguments: "{}" } }]
          },
          { role: "tool", tool_call_id: "call_t", content: "noon" }
        ]
      }),
      false
    )
    expect(sent["tools"]).toEqual([...body.tools, {
      type: "function",
      name: "svc_current_time",
      parameters: { type: "object", properties: {} },
      strict: false
    }])
    expect(sent["input"]).toEqual([
      ...body.input,
      { type: "function_call", call_id: "call_t", name: "svc_current_time", arguments: "{}" },
      { type: "function_call_output", call_id: "call_t", output: "noon" }
    ])
    expect(sent["stream"]).toBe(false)
    expect(body.input).toHaveLength(1)
    expect(body.tools).toHaveLength(2)
  })
})

describe("answers", () => {
  it("a whole response: reasoning, refusal, text, calls; incomplete is length", () => {
    const completion = Result.getOrThrow(decodeResponse(
      JSON.stringify({
        id: "resp_1",
        object: "response",
        status: "completed",
        model: "gpt-5-2025",
        output: [
          { id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: "A." }], encrypted_content: "enc" },
          {
            id: "msg_1",
            type: "message",
            role: "assistant",
            content: [{ type: "output_text", text: "Hi" }, { type: "refusal", refusal: "not that" }]
          },
          { id: "ws_1", type: "web_search_call", status: "completed" },
          { id: "fc_1", type: "function_call", call_id: "call_1", name: "ls", arguments: "{}" }
        ],
        usage: {
          input_tokens: 10,
          input_tokens_details: { cached_tokens: 2 },
          output_tokens: 5,
          output_tokens_details: { reasoning_tokens: 3 },
          total_tokens: 15
        }
      }),
      "fallback"
    ))
    expect(completion.model).toBe("gpt-5-2025")
    expect(completion.choices[0]).toEqual({
      index: 0,
      finish_reason: "tool_calls",
      message: {
        role: "assistant",
        content: "Hi",
        refusal: "not that",
        tool_calls: [{ id: "call_1", type: "function", function: { name: "ls", arguments: "{}" } }],
        thinking_blocks: [{ type: "thinking", thinking: "A.", signature: "enc" }],
        reasoning_content: "A."
      }
    })
    expect(completion.usage).toEqual({
      promptTokens: 10,
      completionTokens: 5,
      totalTokens: 15,
      cachedTokens: 2,
      reasoningTokens: 3
    })
    const cut = Result.getOrThrow(
      decodeResponse(
        JSON.stringify({ status: "incomplete", incomplete_details: { reason: "max_output_tokens" }, output: [] }),
        "m"
      )
    )
    expect(cut.choices[0]?.finish_reason).toBe("length")
    const failed = decodeResponse(
      JSON.stringify({ status: "failed", error: { code: "server_error", message: "boom" }, output: [] }),
      "m"
    )
    expect(Result.isFailure(failed) && failed.failure).toMatchObject({ status: 500, message: "boom" })
  })

  it("a stream: text, summary paragraphs, two calls by item id, the encrypted content, and response.completed last", () => {
    const decode = streamDecoder("m")
    const step = (event: Record<string, unknown>) => decode(JSON.stringify(event))
    const deltas = [
      { type: "response.created", response: { model: "gpt-5-x" } },
      { type: "response.reasoning_summary_part.added", item_id: "rs", summary_index: 0 },
      { type: "response.reasoning_summary_text.delta", item_id: "rs", delta: "One." },
      { type: "response.reasoning_summary_part.added", item_id: "rs", summary_index: 1 },
      { type: "response.reasoning_summary_text.delta", item_id: "rs", delta: "Two." },
      { type: "response.output_item.done", item: { type: "reasoning", encrypted_content: "enc" } },
      { type: "response.output_text.delta", delta: "Hi" },
      {
        type: "response.output_item.added",
        item: { id: "fc_a", type: "function_call", call_id: "call_a", name: "ls", arguments: "" }
      },
      {
        type: "response.output_item.added",
        item: { id: "fc_b", type: "function_call", call_id: "call_b", name: "pwd", arguments: "" }
      },
      { type: "response.function_call_arguments.delta", item_id: "fc_a", delta: "{}" },
      { type: "response.function_call_arguments.delta", item_id: "fc_b", delta: "{\"x\":1}" }
    ].map(step)
    expect(deltas.map((s) => (s._tag === "Chunk" ? s.chunk.choices[0]?.delta : s._tag))).toEqual([
      "Skip",
      "Skip",
      { reasoning_content: "One." },
      { reasoning_content: "\n\n" },
      { reasoning_content: "Two." },
      { reasoning_signature: "enc" },
      { content: "Hi" },
      { tool_calls: [{ index: 0, id: "call_a", type: "function", function: { name: "ls", arguments: "" } }] },
      { tool_calls: [{ index: 1, id: "call_b", type: "function", function: { name: "pwd", arguments: "" } }] },
      { tool_calls: [{ index: 0, function: { arguments: "{}" } }] },
      { tool_calls: [{ index: 1, function: { arguments: "{\"x\":1}" } }] }
    ])
    const last = step({
      type: "response.completed",
      response: { status: "completed", model: "gpt-5-x", usage: { input_tokens: 3, output_tokens: 4 } }
    })
    expect(last._tag).toBe("Last")
    expect(
      last._tag === "Last" && [last.chunk.model, last.chunk.choices[0]?.finish_reason, last.chunk.usage?.totalTokens]
    ).toEqual(["gpt-5-x", "tool_calls", 7])
    expect(
      step({
        type: "response.failed",
        response: { status: "failed", error: { code: "rate_limit_exceeded", message: "slow down" } }
      })
    )
      .toMatchObject({ _tag: "Fail", reason: { status: 429, message: "slow down" } })
    expect(step({ type: "error", code: "server_is_overloaded", message: "busy" })).toMatchObject({
      _tag: "Fail",
      reason: { status: 503 }
    })
  })
})
