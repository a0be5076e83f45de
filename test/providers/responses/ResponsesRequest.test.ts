/**
 * The body a Responses upstream gets, both ways: the client's own Responses request (Codex) as it came
 * but for the model, `stream`, the shared tools it lacks and the tool loop's turns; and a call from any
 * other format written from the gateway's model, with what has no Responses name left out and named.
 */
import { describe, expect, it } from "vitest"
import type { ToolDefinition } from "../../../src/kernel/Canonical.ts"
import { droppedFields, requestBody } from "../../../src/providers/responses/ResponsesRequest.ts"
import { call, codexBody, nativeCall } from "./ResponsesFixtures.ts"

const svcTime: ToolDefinition = {
  type: "function",
  function: {
    name: "svc_current_time",
    description: "The current time",
    parameters: { type: "object", properties: { timezone: { type: "string" } } }
  }
}
const execCommand: ToolDefinition = {
  type: "function",
  function: { name: "exec_command", parameters: { type: "object" } }
}

/** A deep copy, to see that the client's body is not changed. */
const copy = <T>(value: T): T => structuredClone(value)

describe("the client's own Responses request (Codex)", () => {
  // the dialect's messages: instructions, developer, two user messages, the reasoning and call, the output
  const clientTurns = 6

  it("goes as it came but for the model: unknown item and tool types, encrypted reasoning, include, cache key, metadata", () => {
    const before = copy(codexBody)
    const theCall = nativeCall(
      codexBody,
      { modelId: "gpt-5-codex", tools: [execCommand], toolChoice: "auto" },
      clientTurns
    )
    const sent = requestBody(theCall, true)
    expect(sent).toEqual({ ...codexBody, model: "gpt-5-codex" })
    // not a field more or less, in the client's order
    expect(Object.keys(sent)).toEqual(Object.keys(codexBody))
    expect(sent["input"]).toBe(codexBody.input)
    expect(sent["tools"]).toBe(codexBody.tools)
    expect(droppedFields(theCall)).toEqual([])
    expect(codexBody).toEqual(before)
  })

  it("stream is what the adapter needs: false for a whole answer; a body without stream stays without it", () => {
    expect(requestBody(nativeCall(codexBody), false)).toEqual({ ...codexBody, model: "gpt-5", stream: false })
    const { stream: _, ...unstreamed } = codexBody
    expect(requestBody(nativeCall(unstreamed), false)).toEqual({ ...unstreamed, model: "gpt-5" })
    expect(requestBody(nativeCall(unstreamed), true)).toEqual({ ...unstreamed, model: "gpt-5", stream: true })
  })

  it("the shared tools it lacks are appended as flat function tools, not strict; one it has is not added twice", () => {
    const sent = requestBody(nativeCall(codexBody, { tools: [execCommand, svcTime] }, clientTurns), true)
    expect(sent).toEqual({
      ...codexBody,
      model: "gpt-5",
      tools: [
        ...codexBody.tools,
        {
          type: "function",
          name: "svc_current_time",
          description: "The current time",
          parameters: svcTime.function.parameters,
          strict: false
        }
      ]
    })
    expect(codexBody.tools).toHaveLength(4)
  })

  it("the loop's turns are appended as items: reasoning it signed, the text, the calls, their outputs", () => {
    const before = copy(codexBody)
    const clientMessages = Array.from({ length: clientTurns }, () => ({ role: "user" as const, content: "(decoded)" }))
    const sent = requestBody(
      nativeCall(codexBody, {
        tools: [execCommand, svcTime],
        toolChoice: "auto",
        messages: [
          ...clientMessages,
          {
            role: "assistant",
            content: "Checking the time.",
            reasoning_content: "**Time**",
            thinking_blocks: [{ type: "thinking", thinking: "**Time**", signature: "gAAAAAB-loop" }],
            tool_calls: [{
              id: "call_t",
              type: "function",
              function: { name: "svc_current_time", arguments: "{\"timezone\":\"UTC\"}" }
            }]
          },
          { role: "tool", tool_call_id: "call_t", content: "{\"time\":\"12:00\"}" }
        ]
      }, clientTurns),
      true
    )
    expect(sent["input"]).toEqual([
      ...codexBody.input,
      { type: "reasoning", summary: [{ type: "summary_text", text: "**Time**" }], encrypted_content: "gAAAAAB-loop" },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "Checking the time." }] },
      { type: "function_call", call_id: "call_t", name: "svc_current_time", arguments: "{\"timezone\":\"UTC\"}" },
      { type: "function_call_output", call_id: "call_t", output: "{\"time\":\"12:00\"}" }
    ])
    // everything else as the client sent it
    const { input: _i, tools: _t, model: _m, ...rest } = sent
    const { input: _ci, tools: _ct, model: _cm, ...clientRest } = codexBody
    expect(rest).toEqual(clientRest)
    expect(codexBody).toEqual(before)
  })

  it("a string input becomes the user's message before the loop's turns", () => {
    const body = { model: "openai/gpt-5", input: "what time is it?" }
    const sent = requestBody(
      nativeCall(body, {
        tools: [svcTime],
        messages: [
          { role: "user", content: "what time is it?" },
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
    expect(sent).toEqual({
      model: "gpt-5",
      input: [
        { role: "user", content: "what time is it?" },
        { type: "function_call", call_id: "call_t", name: "svc_current_time", arguments: "{}" },
        { type: "function_call_output", call_id: "call_t", output: "noon" }
      ],
      tools: [{
        type: "function",
        name: "svc_current_time",
        description: "The current time",
        parameters: svcTime.function.parameters,
        strict: false
      }]
    })
  })

  it("after a round that met `required` with a shared tool, the next round asks `auto`", () => {
    const body = { ...codexBody, tool_choice: "required" }
    const messages = [
      ...Array.from({ length: clientTurns }, () => ({ role: "user" as const, content: "x" })),
      {
        role: "assistant" as const,
        content: null,
        tool_calls: [{
          id: "call_t",
          type: "function" as const,
          function: { name: "svc_current_time", arguments: "{}" }
        }]
      },
      { role: "tool" as const, tool_call_id: "call_t", content: "noon" }
    ]
    expect(requestBody(nativeCall(body, { toolChoice: "auto", messages }, clientTurns), true)["tool_choice"]).toBe(
      "auto"
    )
    // the first round keeps the client's own choice, whatever its shape
    const allowed = { type: "allowed_tools", mode: "required", tools: [{ type: "function", name: "exec_command" }] }
    expect(
      requestBody(nativeCall({ ...codexBody, tool_choice: allowed }, { toolChoice: "required" }), true)["tool_choice"]
    ).toBe(allowed)
  })

  it("a call whose client wrote another format is written from the model", () => {
    const anthropic = call({
      native: { request: { format: "anthropic", body: { model: "x", messages: [] }, headers: {} }, clientTurns: 1 }
    })
    expect(requestBody(anthropic, true)).toEqual({
      model: "gpt-5",
      input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "Hello" }] }],
      store: false,
      stream: true
    })
  })
})

describe("a call from another format, written from the gateway's model", () => {
  it("messages as input items: system and developer, text and images, thinking it signed, calls and outputs", () => {
    const sent = requestBody(
      call({
        messages: [
          { role: "system", content: "Be brief." },
          { role: "developer", content: [{ type: "text", text: "Use tools." }] },
          {
            role: "user",
            content: [
              { type: "text", text: "What is in these?" },
              { type: "image_url", image_url: { url: "https://example.com/cat.png", detail: "high" } },
              { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } }
            ]
          },
          {
            role: "assistant",
            content: "Let me look.",
            reasoning_content: "Plan.",
            thinking_blocks: [
              { type: "thinking", thinking: "Plan.", signature: "gAAAAAB-enc" },
              { type: "thinking", thinking: "Another model's unsigned thought", signature: "" },
              { type: "redacted_thinking", data: "opaque" }
            ],
            tool_calls: [
              { id: "call_1", type: "function", function: { name: "describe", arguments: "{\"n\":1}" } },
              { id: "call_2", type: "function", function: { name: "describe", arguments: "{\"n\":2}" } }
            ]
          },
          { role: "tool", tool_call_id: "call_1", content: "a cat" },
          { role: "tool", tool_call_id: "call_2", content: [{ type: "text", text: "a dog" }] },
          { role: "assistant", content: [{ type: "text", text: "A cat " }, { type: "text", text: "and a dog." }] },
          { role: "user", content: "Thanks" }
        ]
      }),
      true
    )
    expect(sent["input"]).toEqual([
      { type: "message", role: "system", content: [{ type: "input_text", text: "Be brief." }] },
      { type: "message", role: "developer", content: [{ type: "input_text", text: "Use tools." }] },
      {
        type: "message",
        role: "user",
        content: [
          { type: "input_text", text: "What is in these?" },
          { type: "input_image", image_url: "https://example.com/cat.png", detail: "high" },
          { type: "input_image", image_url: "data:image/png;base64,iVBORw0KGgo=", detail: "auto" }
        ]
      },
      { type: "reasoning", summary: [{ type: "summary_text", text: "Plan." }], encrypted_content: "gAAAAAB-enc" },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "Let me look." }] },
      { type: "function_call", call_id: "call_1", name: "describe", arguments: "{\"n\":1}" },
      { type: "function_call", call_id: "call_2", name: "describe", arguments: "{\"n\":2}" },
      { type: "function_call_output", call_id: "call_1", output: "a cat" },
      { type: "function_call_output", call_id: "call_2", output: "a dog" },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "A cat and a dog." }] },
      { type: "message", role: "user", content: [{ type: "input_text", text: "Thanks" }] }
    ])
    expect(sent).not.toHaveProperty("instructions")
  })

  it("tools, tool choice, limits and the fields Responses names otherwise; store false, stream as asked", () => {
    const weather: ToolDefinition = {
      type: "function",
      function: {
        name: "get_weather",
        description: "Weather",
        parameters: { type: "object", properties: { city: { type: "string" } } },
        strict: true
      }
    }
    const sent = requestBody(
      call({
        tools: [weather, svcTime],
        toolChoice: { type: "function", function: { name: "get_weather" } },
        maxTokens: 256,
        passthrough: {
          temperature: 0.2,
          top_p: 0.9,
          user: "user-1",
          metadata: { team: "a" },
          parallel_tool_calls: false,
          reasoning_effort: "high",
          response_format: {
            type: "json_schema",
            json_schema: { name: "answer", schema: { type: "object" }, strict: true }
          },
          store: false
        }
      }),
      false
    )
    expect(sent).toEqual({
      model: "gpt-5",
      input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "Hello" }] }],
      store: false,
      stream: false,
      temperature: 0.2,
      top_p: 0.9,
      user: "user-1",
      metadata: { team: "a" },
      parallel_tool_calls: false,
      max_output_tokens: 256,
      // summaries are the thinking a client of any format sees; without a stored response it comes encrypted
      reasoning: { effort: "high", summary: "auto" },
      include: ["reasoning.encrypted_content"],
      text: { format: { type: "json_schema", name: "answer", schema: { type: "object" }, strict: true } },
      tools: [
        {
          type: "function",
          name: "get_weather",
          description: "Weather",
          parameters: weather.function.parameters,
          strict: true
        },
        {
          type: "function",
          name: "svc_current_time",
          description: "The current time",
          parameters: svcTime.function.parameters,
          strict: false
        }
      ],
      tool_choice: { type: "function", name: "get_weather" }
    })
    expect(
      requestBody(call({ toolChoice: "required", passthrough: { response_format: { type: "json_object" } } }), true)
    ).toMatchObject({
      tool_choice: "required",
      text: { format: { type: "json_object" } }
    })
    expect(requestBody(call({ passthrough: { max_completion_tokens: 99 } }), true)["max_output_tokens"]).toBe(99)
    expect(requestBody(call(), true)).not.toHaveProperty("include")
  })

  it("chat-only fields are left out and named; store: true too (the gateway keeps nothing); lost parts named", () => {
    const passthrough = {
      n: 2,
      logprobs: true,
      top_logprobs: 3,
      seed: 7,
      stop: ["END"],
      frequency_penalty: 0.5,
      presence_penalty: 0.5,
      logit_bias: { "50256": -100 },
      temperature: 0,
      stream_options: { include_obfuscation: false },
      store: true
    }
    const theCall = call({ passthrough })
    const sent = requestBody(theCall, true)
    for (
      const key of [
        "n",
        "logprobs",
        "top_logprobs",
        "seed",
        "stop",
        "frequency_penalty",
        "presence_penalty",
        "logit_bias",
        "stream_options"
      ]
    ) {
      expect(sent).not.toHaveProperty(key)
    }
    expect(sent["store"]).toBe(false)
    expect(droppedFields(theCall)).toEqual([
      "n",
      "logprobs",
      "top_logprobs",
      "seed",
      "stop",
      "frequency_penalty",
      "presence_penalty",
      "logit_bias",
      "store"
    ])
    expect(droppedFields(call({ passthrough: { store: false, temperature: 1 } }))).toEqual([])
    const audio = call({
      messages: [{
        role: "user",
        content: [{ type: "text", text: "hi" }, { type: "input_audio", input_audio: { data: "AAA", format: "wav" } }]
      }]
    })
    expect(droppedFields(audio)).toEqual(["messages[].content[]"])
    expect(requestBody(audio, true)["input"]).toEqual([{
      type: "message",
      role: "user",
      content: [{ type: "input_text", text: "hi" }]
    }])
  })
})
