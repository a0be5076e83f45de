/**
 * The anthropic adapter's pure parts: where requests go, errors as the API writes them (529 and 5xx fail
 * over, 4xx do not; the type and message kept for an Anthropic client), what a chat-completions call
 * loses on the way (named, never refused), the count_tokens body, and a call from the gateway's model
 * (a default `max_tokens`, stop and user renamed, tool choice, tool results grouped, turns merged).
 */
import { describe, expect, it } from "@effect/vitest"
import { messagesUrl } from "../../src/providers/anthropic/Anthropic.ts"
import { countTokensBody, DEFAULT_MAX_TOKENS, droppedFields, requestBody } from "../../src/providers/anthropic/AnthropicRequest.ts"
import { decodeError, decodeMessage } from "../../src/providers/anthropic/AnthropicResponse.ts"
import type { ProviderCall } from "../../src/providers/Provider.ts"
import { ProviderError } from "../../src/providers/ProviderError.ts"

const call = (overrides: Partial<ProviderCall> = {}): ProviderCall => ({
  modelId: "claude-x",
  messages: [{ role: "user", content: "hi" }],
  tools: undefined,
  toolChoice: undefined,
  maxTokens: undefined,
  passthrough: {},
  requestId: "req_1",
  ...overrides
})

describe("messagesUrl", () => {
  for (const base of ["https://api.anthropic.com", "https://api.anthropic.com/", "https://api.anthropic.com/v1", "https://api.anthropic.com/v1/"]) {
    it(base, () => expect(messagesUrl(base)).toBe("https://api.anthropic.com/v1/messages"))
  }
  it("count_tokens", () => expect(messagesUrl("http://127.0.0.1:9", "messages/count_tokens")).toBe("http://127.0.0.1:9/v1/messages/count_tokens"))
})

describe("decodeError", () => {
  const retryable = (status: number, type: string) =>
    new ProviderError({ provider: "anthropic", reason: decodeError(status, JSON.stringify({ type: "error", error: { type, message: "m" } })) }).retryable

  it("529 overloaded, 500, 429 fail over; 400, 404 and 413 do not", () => {
    expect(retryable(529, "overloaded_error")).toBe(true)
    expect(retryable(500, "api_error")).toBe(true)
    expect(retryable(429, "rate_limit_error")).toBe(true)
    expect(retryable(400, "invalid_request_error")).toBe(false)
    expect(retryable(404, "not_found_error")).toBe(false)
    expect(retryable(413, "request_too_large")).toBe(false)
  })

  it("keeps the type and message as they came; a body that is not Anthropic's is its text", () => {
    expect(decodeError(529, JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } })))
      .toMatchObject({ status: 529, type: "overloaded_error", message: "Overloaded" })
    expect(decodeError(502, "<html>bad gateway</html>")).toMatchObject({ status: 502, message: "<html>bad gateway</html>" })
    expect(decodeError(503, "")).toMatchObject({ status: 503, message: "upstream returned 503" })
  })

  it("a 200 whose body is an error is that error", () => {
    const decoded = decodeMessage(JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "busy" } }), "m")
    expect(decoded._tag).toBe("Failure")
  })
})

describe("a call from the gateway's model", () => {
  it("asks for DEFAULT_MAX_TOKENS without a limit, else the call's or max_completion_tokens", () => {
    expect(requestBody(call(), false)["max_tokens"]).toBe(DEFAULT_MAX_TOKENS)
    expect(requestBody(call({ maxTokens: 77 }), false)["max_tokens"]).toBe(77)
    expect(requestBody(call({ passthrough: { max_completion_tokens: 55 } }), false)["max_tokens"]).toBe(55)
  })

  it("renames stop and user, maps tool choice, groups tool results and merges same-role turns", () => {
    const body = requestBody(call({
      messages: [
        { role: "system", content: "one" },
        { role: "developer", content: "two" },
        { role: "user", content: "a" },
        { role: "user", content: "b" },
        { role: "assistant", content: null, tool_calls: [{ id: "t1", type: "function", function: { name: "f", arguments: "{\"x\":1}" } }, { id: "t2", type: "function", function: { name: "f", arguments: "not json" } }] },
        { role: "tool", tool_call_id: "t1", content: "r1" },
        { role: "tool", tool_call_id: "t2", content: "r2", is_error: true }
      ],
      tools: [{ type: "function", function: { name: "f", parameters: { type: "object" } } }],
      toolChoice: "required",
      passthrough: { stop: "END", user: "u1", parallel_tool_calls: false, temperature: 0.3 }
    }), true)
    expect(body).toEqual({
      model: "claude-x",
      max_tokens: DEFAULT_MAX_TOKENS,
      system: "one\n\ntwo",
      messages: [
        { role: "user", content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] },
        { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "f", input: { x: 1 } }, { type: "tool_use", id: "t2", name: "f", input: {} }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "r1" }, { type: "tool_result", tool_use_id: "t2", content: "r2", is_error: true }] }
      ],
      tools: [{ name: "f", input_schema: { type: "object" } }],
      tool_choice: { type: "any", disable_parallel_tool_use: true },
      stop_sequences: ["END"],
      temperature: 0.3,
      metadata: { user_id: "u1" },
      stream: true
    })
  })

  it("names what it leaves out: chat-completions fields Anthropic has none for, and parts it cannot carry", () => {
    expect(droppedFields(call({ passthrough: { seed: 1, n: 2, response_format: { type: "json_object" }, stop: "x", temperature: 1 } })))
      .toEqual(["seed", "n", "response_format"])
    expect(droppedFields(call({ messages: [{ role: "user", content: [{ type: "input_audio", input_audio: {} }] }] })))
      .toEqual(["messages[].content[] (parts other than text and images)"])
  })

  it("a count_tokens body has no max_tokens, stream or sampling settings", () => {
    const body = countTokensBody(call({ maxTokens: 10, passthrough: { temperature: 1, stop: "x" } }))
    expect(body).toEqual({ model: "claude-x", messages: [{ role: "user", content: "hi" }] })
  })
})
