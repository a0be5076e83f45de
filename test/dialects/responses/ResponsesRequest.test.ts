/**
 * The Responses dialect's decoder: every input item kind into the gateway's model, the fields with chat
 * names, what is dropped and named, and a 400 naming the field for each kind of bad input.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { parseResponsesCall } from "../../../src/dialects/responses/ResponsesRequest.ts"
import { InvalidField } from "../../../src/kernel/RequestError.ts"

const decode = (body: unknown) => Effect.runSync(parseResponsesCall(body, {}))
const refusal = (body: unknown): InvalidField => {
  const { reason } = Effect.runSync(Effect.flip(parseResponsesCall(body, {})))
  if (!(reason instanceof InvalidField)) throw new Error(`not an invalid field: ${reason._tag}`)
  return reason
}

describe("decoding", () => {
  it("a string input is one user message; instructions lead as a system message", () => {
    const call = decode({ model: "a/b", input: "hi", instructions: "be brief" })
    expect(call.messages).toEqual([{ role: "system", content: "be brief" }, { role: "user", content: "hi" }])
    expect(call.stream).toBe(false)
    expect(call.includeUsage).toBe(true)
  })

  it("every item kind: parts, images, an assistant turn of reasoning, text and calls, the call's output", () => {
    const call = decode({
      model: "a/b",
      input: [
        {
          role: "user",
          content: [{ type: "input_text", text: "Look" }, {
            type: "input_image",
            image_url: "data:image/png;base64,AA",
            detail: "low"
          }, { type: "input_file", file_id: "f" }]
        },
        {
          type: "reasoning",
          id: "rs_1",
          summary: [{ type: "summary_text", text: "One." }, { type: "summary_text", text: "Two." }],
          encrypted_content: "enc"
        },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Checking." }] },
        { type: "function_call", call_id: "call_1", name: "ls", arguments: "{}" },
        { type: "function_call_output", call_id: "call_1", output: [{ type: "input_text", text: "a.txt" }] },
        { type: "item_reference", id: "msg_9" },
        { role: "assistant", content: [{ type: "refusal", refusal: "No." }] }
      ]
    })
    expect(call.messages).toEqual([
      {
        role: "user",
        content: [{ type: "text", text: "Look" }, {
          type: "image_url",
          image_url: { url: "data:image/png;base64,AA", detail: "low" }
        }]
      },
      {
        role: "assistant",
        content: "Checking.",
        tool_calls: [{ id: "call_1", type: "function", function: { name: "ls", arguments: "{}" } }],
        thinking_blocks: [{ type: "thinking", thinking: "One.\n\nTwo.", signature: "enc" }],
        reasoning_content: "One.\n\nTwo."
      },
      { role: "tool", tool_call_id: "call_1", content: "a.txt" },
      { role: "assistant", content: "", refusal: "No." }
    ])
    expect(call.dropped).toEqual(["input[0].content[2].input_file", "input[5].item_reference"])
  })

  it("fields under their chat names; tools and tool choice; what the model lacks is named", () => {
    const call = decode({
      model: "a/b",
      input: "x",
      max_output_tokens: 99,
      temperature: 0.5,
      top_p: 0.9,
      reasoning: { effort: "high", summary: "auto" },
      text: { format: { type: "json_schema", name: "r", schema: { type: "object" }, strict: true }, verbosity: "low" },
      safety_identifier: "u1",
      store: true,
      truncation: "auto",
      tools: [{ type: "function", name: "ls", parameters: { type: "object" }, strict: true }, {
        type: "custom",
        name: "apply_patch"
      }],
      tool_choice: { type: "function", name: "ls" }
    })
    expect(call.maxTokens).toBe(99)
    expect(call.passthrough).toEqual({
      temperature: 0.5,
      top_p: 0.9,
      user: "u1",
      reasoning_effort: "high",
      verbosity: "low",
      response_format: { type: "json_schema", json_schema: { name: "r", schema: { type: "object" }, strict: true } }
    })
    expect(call.tools).toEqual([{
      type: "function",
      function: { name: "ls", parameters: { type: "object" }, strict: true }
    }])
    expect(call.toolChoice).toEqual({ type: "function", function: { name: "ls" } })
    expect(call.dropped).toEqual(["truncation", "store", "tools[1].custom"])
  })

  it("the gateway's own fields are acted on and left out of the body a Responses upstream gets", () => {
    const body = { model: "a/b", input: "x", svc_tool_ids: ["svc_t"], tags: ["team:a"], svc_pending_id: "svcpend_1" }
    const call = decode(body)
    expect(call.svcToolIds).toEqual(["svc_t"])
    expect(call.tags).toEqual(["team:a"])
    expect(call.svcPendingId).toBe("svcpend_1")
    expect(call.native?.body).toEqual({ model: "a/b", input: "x" })
    expect(call.dropped).toEqual([])
  })
})

describe("refusals name the field", () => {
  const cases: ReadonlyArray<readonly [string, unknown, string, string]> = [
    ["no model", { input: "x" }, "model", "Missing required parameter"],
    ["input of the wrong type", { model: "a/b", input: 3 }, "input", "Invalid value"],
    ["no input", { model: "a/b" }, "input", "Missing required parameter"],
    ["an empty input", { model: "a/b", input: [] }, "input", "at least 1 item"],
    ["an item that is not an object", { model: "a/b", input: ["x"] }, "input[0]", "input item"],
    [
      "an item without a type or role",
      { model: "a/b", input: [{ content: "x" }] },
      "input[0].type",
      "Missing required parameter"
    ],
    [
      "a message of an unknown role",
      { model: "a/b", input: [{ role: "bot", content: "x" }] },
      "input[0].role",
      "Expected one of"
    ],
    [
      "a message without content",
      { model: "a/b", input: [{ role: "user" }] },
      "input[0].content",
      "Missing required parameter"
    ],
    [
      "a function call without call_id",
      { model: "a/b", input: [{ type: "function_call", name: "ls" }] },
      "input[0].call_id",
      "Missing required parameter"
    ],
    [
      "a function call with arguments that are not a string",
      { model: "a/b", input: [{ type: "function_call", call_id: "c", name: "ls", arguments: {} }] },
      "input[0].arguments",
      "Expected a string"
    ],
    [
      "a call output without output",
      { model: "a/b", input: [{ type: "function_call_output", call_id: "c" }] },
      "input[0].output",
      "Missing required parameter"
    ],
    [
      "a tool named svc_",
      { model: "a/b", input: "x", tools: [{ type: "function", name: "svc_mine" }] },
      "tools[0].name",
      "reserved"
    ],
    [
      "a function tool without a name",
      { model: "a/b", input: "x", tools: [{ type: "function" }] },
      "tools[0].name",
      "Missing required parameter"
    ],
    ["an unknown tool choice", { model: "a/b", input: "x", tool_choice: "always" }, "tool_choice", "Expected"],
    [
      "max_output_tokens below 1",
      { model: "a/b", input: "x", max_output_tokens: 0 },
      "max_output_tokens",
      "Expected an integer >= 1"
    ],
    [
      "previous_response_id",
      { model: "a/b", input: "x", previous_response_id: "resp_1" },
      "previous_response_id",
      "the gateway keeps no responses"
    ],
    [
      "conversation",
      { model: "a/b", input: "x", conversation: "conv_1" },
      "conversation",
      "the gateway keeps no responses"
    ]
  ]
  for (const [label, body, param, message] of cases) {
    it(label, () => {
      const error = refusal(body)
      expect(error.param).toBe(param)
      expect(error.message).toContain(message)
    })
  }
})
