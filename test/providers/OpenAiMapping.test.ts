import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import type { ChatMessage, ToolDefinition, Usage } from "../../src/kernel/Canonical.ts"
import {
  buildRequestBody,
  decodeChunk,
  decodeCompletion,
  decodeErrorResponse,
  maxErrorMessageLength,
  normalizeUsage
} from "../../src/providers/openai/OpenAiMapping.ts"
import type { ProviderCall } from "../../src/providers/Provider.ts"
import { UpstreamBadResponse, UpstreamStatus } from "../../src/providers/ProviderError.ts"
import { plain } from "./OpenAiFixtures.ts"

const messages: ReadonlyArray<ChatMessage> = [{ role: "user", content: "hi" }]
const weather: ToolDefinition = { type: "function", function: { name: "get_weather", parameters: { type: "object" } } }

const callOf = (overrides: Partial<ProviderCall> = {}): ProviderCall => ({
  modelId: "gpt-4o-mini",
  messages,
  tools: undefined,
  toolChoice: undefined,
  maxTokens: undefined,
  passthrough: {},
  requestId: "req-1",
  ...overrides
})

const usage = (p: number, c: number, t: number, cached = 0, reasoning = 0): Usage => ({
  promptTokens: p,
  completionTokens: c,
  totalTokens: t,
  cachedTokens: cached,
  reasoningTokens: reasoning
})

describe("buildRequestBody", () => {
  const cases: ReadonlyArray<readonly [string, ProviderCall, boolean, Record<string, unknown>]> = [
    ["non-streaming, nothing optional: no tools, tool_choice, max_tokens or stream_options keys", callOf(), false, {
      model: "gpt-4o-mini",
      messages,
      stream: false
    }],
    [
      "tools, tool_choice and max_tokens when defined",
      callOf({ tools: [weather], toolChoice: "auto", maxTokens: 64 }),
      false,
      {
        model: "gpt-4o-mini",
        messages,
        stream: false,
        tools: [weather],
        tool_choice: "auto",
        max_tokens: 64
      }
    ],
    [
      "passthrough fields kept; model, messages and stream are the adapter's",
      callOf({
        passthrough: { temperature: 0.2, seed: 7, model: "other", messages: [], stream: true, user: "u1" }
      }),
      false,
      { temperature: 0.2, seed: 7, user: "u1", model: "gpt-4o-mini", messages, stream: false }
    ],
    [
      "a client's stream_options dropped when not streaming",
      callOf({
        passthrough: { stream_options: { include_usage: false }, top_p: 1 }
      }),
      false,
      { top_p: 1, model: "gpt-4o-mini", messages, stream: false }
    ],
    ["streaming always asks for usage", callOf(), true, {
      model: "gpt-4o-mini",
      messages,
      stream: true,
      stream_options: { include_usage: true }
    }],
    [
      "streaming merges the client's stream_options and overrides include_usage",
      callOf({
        passthrough: { stream_options: { include_usage: false, include_obfuscation: false } }
      }),
      true,
      {
        model: "gpt-4o-mini",
        messages,
        stream: true,
        stream_options: { include_usage: true, include_obfuscation: false }
      }
    ],
    [
      "streaming ignores a stream_options that is not an object",
      callOf({
        passthrough: { stream_options: "yes" }
      }),
      true,
      { model: "gpt-4o-mini", messages, stream: true, stream_options: { include_usage: true } }
    ],
    ["tool_choice none is sent", callOf({ toolChoice: "none" }), true, {
      model: "gpt-4o-mini",
      messages,
      stream: true,
      tool_choice: "none",
      stream_options: { include_usage: true }
    }]
  ]
  for (const [label, call, stream, expected] of cases) {
    it(label, () => {
      const body = buildRequestBody(call, stream)
      assert.deepStrictEqual(body, expected)
      if (!stream) assert.isFalse("stream_options" in body)
    })
  }
})

describe("normalizeUsage", () => {
  const cases: ReadonlyArray<readonly [string, unknown, Usage]> = [
    ["no usage at all", undefined, usage(0, 0, 0)],
    ["null usage", null, usage(0, 0, 0)],
    ["plain counts", { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 }, usage(10, 5, 15)],
    ["total missing: prompt + completion", { prompt_tokens: 10, completion_tokens: 5 }, usage(10, 5, 15)],
    ["total null: prompt + completion", { prompt_tokens: 3, completion_tokens: 4, total_tokens: null }, usage(3, 4, 7)],
    [
      "total as reported even if it differs",
      { prompt_tokens: 3, completion_tokens: 4, total_tokens: 9 },
      usage(3, 4, 9)
    ],
    ["chat-completions detail names", {
      prompt_tokens: 100,
      completion_tokens: 50,
      total_tokens: 150,
      prompt_tokens_details: { cached_tokens: 64, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 32 }
    }, usage(100, 50, 150, 64, 32)],
    ["responses-API detail names", {
      prompt_tokens: 100,
      completion_tokens: 50,
      input_tokens_details: { cached_tokens: 8 },
      output_tokens_details: { reasoning_tokens: 16 }
    }, usage(100, 50, 150, 8, 16)],
    ["null details and null counts are 0", {
      prompt_tokens: null,
      completion_tokens: 2,
      prompt_tokens_details: null,
      completion_tokens_details: { reasoning_tokens: null }
    }, usage(0, 2, 2)],
    ["a null detail falls back to the other spelling", {
      prompt_tokens: 1,
      completion_tokens: 1,
      prompt_tokens_details: { cached_tokens: null },
      input_tokens_details: { cached_tokens: 1 }
    }, usage(1, 1, 2, 1)],
    ["non-numeric values are 0", { prompt_tokens: "12", completion_tokens: 1 }, usage(0, 1, 1)]
  ]
  for (const [label, input, expected] of cases) {
    it(label, () => assert.deepStrictEqual(normalizeUsage(input), expected))
  }
})

describe("decodeErrorResponse", () => {
  const long = "x".repeat(5000)
  const cases: ReadonlyArray<readonly [string, number, string, Record<string, unknown>]> = [
    [
      "OpenAI's error object",
      401,
      JSON.stringify({
        error: {
          message: "Incorrect API key provided",
          type: "invalid_request_error",
          code: "invalid_api_key",
          param: null
        }
      }),
      {
        status: 401,
        message: "Incorrect API key provided",
        type: "invalid_request_error",
        code: "invalid_api_key",
        param: null
      }
    ],
    ["a numeric code becomes a string", 429, JSON.stringify({ error: { message: "slow down", code: 429 } }), {
      status: 429,
      message: "slow down",
      code: "429"
    }],
    ["an error string", 400, JSON.stringify({ error: "model not found" }), { status: 400, message: "model not found" }],
    ["a top-level message", 404, JSON.stringify({ message: "no such model" }), {
      status: 404,
      message: "no such model"
    }],
    ["a FastAPI detail string", 422, JSON.stringify({ detail: "bad request" }), {
      status: 422,
      message: "bad request"
    }],
    ["a FastAPI detail list, as JSON", 422, JSON.stringify({ detail: [{ loc: ["body", "model"], msg: "required" }] }), {
      status: 422,
      message: "[{\"loc\":[\"body\",\"model\"],\"msg\":\"required\"}]"
    }],
    [
      "an array of error objects",
      400,
      JSON.stringify([{ error: { message: "bad key", status: "INVALID_ARGUMENT" } }]),
      {
        status: 400,
        message: "bad key"
      }
    ],
    ["plain text, trimmed", 502, "  Bad Gateway\n", { status: 502, message: "Bad Gateway" }],
    ["JSON with no message field: the text as is", 500, "{\"oops\":true}", { status: 500, message: "{\"oops\":true}" }],
    ["an empty body", 503, "", { status: 503, message: "upstream returned 503" }],
    ["a blank body", 500, " \n", { status: 500, message: "upstream returned 500" }],
    ["a long body is capped", 500, long, { status: 500, message: `${"x".repeat(maxErrorMessageLength)}…` }]
  ]
  for (const [label, status, body, expected] of cases) {
    it(label, () => {
      const error = decodeErrorResponse(status, body)
      assert.instanceOf(error, UpstreamStatus)
      assert.deepStrictEqual(plain(error), { _tag: "UpstreamStatus", ...expected })
    })
  }
})

const failureOf = <A, E>(result: Result.Result<A, E>): E => {
  if (Result.isSuccess(result)) return assert.fail("expected a failure")
  return result.failure
}
const successOf = <A, E>(result: Result.Result<A, E>): A => {
  if (Result.isFailure(result)) return assert.fail(`expected a success, got ${String(result.failure)}`)
  return result.success
}

describe("decodeCompletion", () => {
  it("decodes choices with their unknown keys, the upstream model, usage and extra fields", () => {
    const body = {
      id: "chatcmpl-1",
      object: "chat.completion",
      created: 1700000000,
      model: "gpt-4o-mini-2024-07-18",
      system_fingerprint: "fp_1",
      service_tier: "default",
      choices: [{
        index: 0,
        message: { role: "assistant", content: "Hello", refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: "stop"
      }],
      usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11, prompt_tokens_details: { cached_tokens: 4 } }
    }
    const completion = successOf(decodeCompletion(JSON.stringify(body), "gpt-4o-mini"))
    assert.strictEqual(completion.model, "gpt-4o-mini-2024-07-18")
    assert.deepStrictEqual<unknown>(completion.choices, body.choices)
    assert.deepStrictEqual(completion.usage, usage(9, 2, 11, 4))
    assert.deepStrictEqual(completion.extra, { system_fingerprint: "fp_1", service_tier: "default" })
  })

  it("falls back to the model id and zero usage", () => {
    const body = {
      choices: [{
        index: 0,
        message: {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }]
        },
        finish_reason: "tool_calls"
      }]
    }
    const completion = successOf(decodeCompletion(JSON.stringify(body), "llama3"))
    assert.strictEqual(completion.model, "llama3")
    assert.deepStrictEqual(completion.usage, usage(0, 0, 0))
    assert.deepStrictEqual(completion.extra, {})
    assert.strictEqual(completion.choices[0]?.message.tool_calls?.[0]?.function.name, "f")
  })

  const bad: ReadonlyArray<readonly [string, string, string]> = [
    ["invalid JSON", "{\"choices\": [", "upstream response is not valid JSON"],
    ["an HTML page", "<html>oops</html>", "upstream response is not valid JSON"],
    ["not an object", "[1,2]", "upstream response is not a JSON object"],
    ["choices missing", "{\"id\":\"x\"}", "upstream choices are malformed"],
    [
      "a choice without a message",
      "{\"choices\":[{\"index\":0,\"finish_reason\":\"stop\"}]}",
      "upstream choices are malformed"
    ]
  ]
  for (const [label, body, prefix] of bad) {
    it(`fails with UpstreamBadResponse for ${label}`, () => {
      const error = failureOf(decodeCompletion(body, "m"))
      assert.instanceOf(error, UpstreamBadResponse)
      assert.isTrue(error.message.startsWith(prefix), error.message)
    })
  }

  it("turns a 2xx body holding an error into UpstreamStatus", () => {
    const error = failureOf(decodeCompletion(JSON.stringify({ error: { message: "overloaded", code: 503 } }), "m"))
    assert.deepStrictEqual(plain(error), { _tag: "UpstreamStatus", status: 503, message: "overloaded", code: "503" })
  })
})

describe("decodeChunk", () => {
  it("decodes a delta chunk, keeping unknown keys and extra top-level fields", () => {
    const data = {
      id: "c1",
      object: "chat.completion.chunk",
      created: 1,
      model: "gpt-4o",
      system_fingerprint: "fp",
      choices: [{ index: 0, delta: { content: "Hel", reasoning_content: "hmm" }, logprobs: null, finish_reason: null }],
      usage: null
    }
    const chunk = successOf(decodeChunk(JSON.stringify(data), "fallback"))
    assert.strictEqual(chunk.model, "gpt-4o")
    assert.deepStrictEqual(chunk.choices, data.choices)
    assert.isUndefined(chunk.usage)
    assert.deepStrictEqual(chunk.extra, { system_fingerprint: "fp" })
  })

  it("decodes OpenAI's final usage chunk: empty choices and usage", () => {
    const data = {
      id: "c1",
      model: "gpt-4o",
      choices: [],
      usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 }
    }
    const chunk = successOf(decodeChunk(JSON.stringify(data), "fallback"))
    assert.deepStrictEqual(chunk.choices, [])
    assert.deepStrictEqual(chunk.usage, usage(5, 7, 12))
  })

  it("accepts a usage chunk without a choices key, and falls back to the model id", () => {
    const chunk = successOf(decodeChunk(JSON.stringify({ usage: { prompt_tokens: 1, completion_tokens: 1 } }), "llama"))
    assert.strictEqual(chunk.model, "llama")
    assert.deepStrictEqual(chunk.choices, [])
    assert.deepStrictEqual(chunk.usage, usage(1, 1, 2))
  })

  it("decodes tool call deltas", () => {
    const data = {
      choices: [{
        index: 0,
        delta: { tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "f", arguments: "" } }] }
      }]
    }
    const chunk = successOf(decodeChunk(JSON.stringify(data), "m"))
    assert.strictEqual(chunk.choices[0]?.delta.tool_calls?.[0]?.id, "call_1")
  })

  const errors: ReadonlyArray<readonly [string, unknown, number, string]> = [
    ["a numeric code", { error: { message: "rate limited", code: 429 } }, 429, "rate limited"],
    ["a numeric status", { error: { message: "busy", status: 503, type: "server_error" } }, 503, "busy"],
    [
      "a non-numeric code: 502",
      { error: { message: "context too long", code: "context_length_exceeded" } },
      502,
      "context too long"
    ],
    ["an error string: 502", { error: "boom" }, 502, "boom"],
    ["a code out of range: 502", { error: { message: "odd", code: 42 } }, 502, "odd"]
  ]
  for (const [label, payload, status, message] of errors) {
    it(`turns an error payload with ${label} into UpstreamStatus`, () => {
      const error = failureOf(decodeChunk(JSON.stringify(payload), "m"))
      const fields = plain(error)
      assert.deepStrictEqual([fields["_tag"], fields["status"], fields["message"]], ["UpstreamStatus", status, message])
    })
  }

  it("fails with UpstreamBadResponse for invalid JSON and malformed choices", () => {
    assert.instanceOf(failureOf(decodeChunk("{not json", "m")), UpstreamBadResponse)
    assert.instanceOf(failureOf(decodeChunk("{\"choices\":[{\"index\":\"0\"}]}", "m")), UpstreamBadResponse)
  })
})
