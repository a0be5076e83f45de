/** Gemini's request body from the gateway's model, and its answers (whole and streamed) read back. */
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { droppedFields, requestBody } from "../../../src/providers/gemini/GeminiRequest.ts"
import { decodeGeminiError, decodeResponse, streamDecoder } from "../../../src/providers/gemini/GeminiResponse.ts"
import type { ProviderCall } from "../../../src/providers/Provider.ts"

const call = (overrides: Partial<ProviderCall> = {}): ProviderCall => ({
  modelId: "gemini-2.5-flash",
  messages: [{ role: "user", content: "hi" }],
  tools: undefined,
  toolChoice: undefined,
  maxTokens: undefined,
  passthrough: {},
  requestId: "req_1",
  ...overrides
})

describe("the request", () => {
  it("system gathered, roles user/model, tool calls and results by name, the thought signature on the first call", () => {
    expect(requestBody(call({
      messages: [
        { role: "system", content: "Be brief." },
        {
          role: "user",
          content: [{ type: "text", text: "Look:" }, {
            type: "image_url",
            image_url: { url: "data:image/png;base64,AAAA" }
          }, { type: "image_url", image_url: { url: "https://x/y.png" } }]
        },
        { role: "developer", content: "Use tools." },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "call_1", type: "function", function: { name: "ls", arguments: "{\"dir\":\"/\"}" } }, {
            id: "call_2",
            type: "function",
            function: { name: "pwd", arguments: "" }
          }],
          thinking_blocks: [{ type: "thinking", thinking: "hmm", signature: "sig-1" }]
        },
        { role: "tool", tool_call_id: "call_1", content: "{\"files\":[\"a\"]}" },
        { role: "tool", tool_call_id: "call_2", content: "/home" },
        { role: "user", content: "and?" }
      ]
    }))).toEqual({
      systemInstruction: { parts: [{ text: "Be brief." }, { text: "Use tools." }] },
      contents: [
        {
          role: "user",
          parts: [{ text: "Look:" }, { inlineData: { mimeType: "image/png", data: "AAAA" } }, {
            fileData: { fileUri: "https://x/y.png" }
          }]
        },
        {
          role: "model",
          parts: [{ functionCall: { name: "ls", args: { dir: "/" } }, thoughtSignature: "sig-1" }, {
            functionCall: { name: "pwd", args: {} }
          }]
        },
        {
          role: "user",
          parts: [
            { functionResponse: { name: "ls", response: { files: ["a"] } } },
            { functionResponse: { name: "pwd", response: { content: "/home" } } },
            { text: "and?" }
          ]
        }
      ]
    })
  })

  it("tools, tool choice and generation settings; what Gemini has no field for is named", () => {
    const theCall = call({
      tools: [{
        type: "function",
        function: {
          name: "ls",
          description: "List",
          parameters: { type: "object", additionalProperties: false, properties: { dir: { type: "string" } } }
        }
      }, {
        type: "function",
        function: { name: "now", parameters: { type: "object", properties: {} } }
      }],
      toolChoice: { type: "function", function: { name: "ls" } },
      maxTokens: 100,
      passthrough: {
        temperature: 0.3,
        top_p: 0.9,
        stop: "END",
        seed: 4,
        reasoning_effort: "low",
        logprobs: true,
        n: 2,
        response_format: {
          type: "json_schema",
          json_schema: {
            name: "r",
            schema: { type: "object", properties: { a: { type: "string" } }, additionalProperties: false }
          }
        }
      }
    })
    expect(requestBody(theCall)).toEqual({
      contents: [{ role: "user", parts: [{ text: "hi" }] }],
      tools: [{
        functionDeclarations: [{
          name: "ls",
          description: "List",
          parameters: { type: "object", properties: { dir: { type: "string" } } }
        }, { name: "now" }]
      }],
      toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["ls"] } },
      generationConfig: {
        maxOutputTokens: 100,
        temperature: 0.3,
        topP: 0.9,
        seed: 4,
        stopSequences: ["END"],
        responseMimeType: "application/json",
        responseSchema: { type: "object", properties: { a: { type: "string" } } },
        thinkingConfig: { thinkingBudget: 1024, includeThoughts: true }
      }
    })
    expect(droppedFields(theCall)).toEqual(["logprobs", "n"])
    for (const [choice, mode] of [["auto", "AUTO"], ["required", "ANY"], ["none", "NONE"]] as const) {
      expect(requestBody(call({ tools: theCall.tools, toolChoice: choice }))["toolConfig"]).toEqual({
        functionCallingConfig: { mode }
      })
    }
  })
})

const usageMetadata = {
  promptTokenCount: 50,
  candidatesTokenCount: 10,
  thoughtsTokenCount: 30,
  cachedContentTokenCount: 40,
  totalTokenCount: 90
}

describe("answers", () => {
  it("a whole answer: text, thoughts with their signature, function calls, usage with thoughts and cache", () => {
    const body = JSON.stringify({
      candidates: [{
        content: {
          role: "model",
          parts: [{ text: "Planning.", thought: true }, { text: "Let me look." }, {
            functionCall: { name: "ls", args: { dir: "/" } },
            thoughtSignature: "sig-9"
          }]
        },
        finishReason: "STOP",
        index: 0
      }],
      usageMetadata,
      modelVersion: "gemini-2.5-flash-001"
    })
    const completion = Result.getOrThrow(decodeResponse(body, "fallback"))
    expect(completion.model).toBe("gemini-2.5-flash-001")
    expect(completion.choices[0]).toMatchObject({
      finish_reason: "tool_calls",
      message: {
        role: "assistant",
        content: "Let me look.",
        reasoning_content: "Planning.",
        thinking_blocks: [{ type: "thinking", thinking: "Planning.", signature: "sig-9" }],
        tool_calls: [{
          id: expect.stringMatching(/^call_/),
          type: "function",
          function: { name: "ls", arguments: "{\"dir\":\"/\"}" }
        }]
      }
    })
    expect(completion.usage).toEqual({
      promptTokens: 50,
      completionTokens: 40,
      totalTokens: 90,
      cachedTokens: 40,
      reasoningTokens: 30
    })
  })

  it("finish reasons: MAX_TOKENS is length, SAFETY content_filter; a blocked prompt is an empty filtered answer", () => {
    const finish = (reason: string) =>
      Result.getOrThrow(
        decodeResponse(
          JSON.stringify({ candidates: [{ content: { parts: [{ text: "x" }] }, finishReason: reason }] }),
          "m"
        )
      ).choices[0]?.finish_reason
    expect(finish("MAX_TOKENS")).toBe("length")
    expect(finish("SAFETY")).toBe("content_filter")
    expect(finish("RECITATION")).toBe("content_filter")
    expect(finish("STOP")).toBe("stop")
    const blocked = Result.getOrThrow(
      decodeResponse(
        JSON.stringify({
          promptFeedback: { blockReason: "PROHIBITED_CONTENT" },
          usageMetadata: { promptTokenCount: 5 }
        }),
        "m"
      )
    )
    expect(blocked.choices[0]).toMatchObject({ finish_reason: "content_filter", message: { content: "" } })
  })

  it("errors keep status, message and Gemini's status name; an error inside a 200 has its code", () => {
    const error = decodeGeminiError(
      429,
      JSON.stringify({ error: { code: 429, message: "Resource has been exhausted", status: "RESOURCE_EXHAUSTED" } })
    )
    expect(error).toMatchObject({ status: 429, message: "Resource has been exhausted", type: "RESOURCE_EXHAUSTED" })
    expect(error.retryable).toBe(true)
    expect(
      decodeGeminiError(
        400,
        "[{\"error\":{\"code\":400,\"message\":\"Invalid JSON payload\",\"status\":\"INVALID_ARGUMENT\"}}]"
      ).retryable
    ).toBe(false)
    const embedded = decodeResponse(
      JSON.stringify({ error: { code: 503, message: "overloaded", status: "UNAVAILABLE" } }),
      "m"
    )
    expect(Result.isFailure(embedded) && embedded.failure).toMatchObject({ status: 503, message: "overloaded" })
  })

  it("a stream: thoughts, text, a whole function call per part, the finish reason's event last with usage", () => {
    const decode = streamDecoder("m")
    const steps = [
      { candidates: [{ content: { role: "model", parts: [{ text: "Hmm.", thought: true }] } }] },
      { candidates: [{ content: { role: "model", parts: [{ text: "Hel" }] } }] },
      { candidates: [{ content: { role: "model", parts: [{ text: "lo", thoughtSignature: "sig" }] } }] },
      {
        candidates: [{
          content: { role: "model", parts: [{ functionCall: { id: "g1", name: "ls", args: {} } }] },
          finishReason: "STOP"
        }],
        usageMetadata
      }
    ].map((event) => decode(JSON.stringify(event)))
    expect(steps.map((step) => step._tag)).toEqual(["Chunk", "Chunk", "Chunk", "Last"])
    const deltas = steps.map((
      step
    ) => (step._tag === "Chunk" || step._tag === "Last" ? step.chunk.choices[0]?.delta : undefined))
    expect(deltas).toEqual([
      { reasoning_content: "Hmm." },
      { content: "Hel" },
      { reasoning_signature: "sig", content: "lo" },
      { tool_calls: [{ index: 0, id: "g1", type: "function", function: { name: "ls", arguments: "{}" } }] }
    ])
    const last = steps[3]
    expect(last?._tag === "Last" && last.chunk.choices[0]?.finish_reason).toBe("tool_calls")
    expect(last?._tag === "Last" && last.chunk.usage?.completionTokens).toBe(40)
    expect(decode("{\"error\":{\"code\":500,\"message\":\"Internal\",\"status\":\"INTERNAL\"}}")).toMatchObject({
      _tag: "Fail",
      reason: { status: 500 }
    })
  })
})
