/**
 * Errors in Anthropic's shape: the type of each status, the Problem's status kept, the gateway's own
 * extra fields inside the error object, an upstream's refusal or failure passed on unchanged (but never
 * its refusal of the gateway's credentials), and the `error` event that ends a failed stream. Also the
 * dialect's key headers and its message ids.
 */
import { describe, expect, it } from "@effect/vitest"
import { describeError, type Problem } from "../../../src/core/Problem.ts"
import { AnthropicMessages } from "../../../src/dialects/anthropic/AnthropicDialect.ts"
import { messagesError, messagesStreamError } from "../../../src/dialects/anthropic/MessagesErrors.ts"
import { InvalidSvcToolIds, RequestError } from "../../../src/kernel/RequestError.ts"
import { ProviderError, UpstreamStatus, UpstreamTimeout } from "../../../src/providers/ProviderError.ts"

const problem = (status: number, more: Partial<Problem> = {}): Problem => ({
  status,
  type: "whatever_openai_type",
  code: "some_code",
  message: `status ${status}`,
  param: null,
  extra: {},
  ...more
})

const upstreamFailure = (status: number, message: string, type?: string) =>
  describeError(
    new ProviderError({
      provider: "anthropic",
      reason: new UpstreamStatus(type === undefined ? { status, message } : { status, message, type })
    })
  )

describe("the error body", () => {
  const types = [
    [400, "invalid_request_error"],
    [401, "authentication_error"],
    [403, "permission_error"],
    [404, "not_found_error"],
    [413, "request_too_large"],
    [429, "rate_limit_error"],
    [500, "api_error"],
    [502, "api_error"],
    [503, "api_error"],
    [504, "api_error"],
    [529, "overloaded_error"],
    // statuses Anthropic has no type of its own for
    [405, "invalid_request_error"],
    [409, "invalid_request_error"],
    [501, "api_error"]
  ] as const
  for (const [status, type] of types) {
    it(`${status}: ${type}, the status kept, the message as described`, () => {
      expect(messagesError(problem(status))).toStrictEqual({
        status,
        body: { type: "error", error: { type, message: `status ${status}` } }
      })
    })
  }

  it("the gateway's own fields stay inside the error object", () => {
    const described = describeError(
      new RequestError({ reason: new InvalidSvcToolIds({ invalid: [{ id: "svc_nope", why: "not activated" }] }) })
    )
    const { status, body } = messagesError(described)
    expect(status).toBe(400)
    expect(body).toStrictEqual({
      type: "error",
      error: { type: "invalid_request_error", message: described.message, invalid_svc_tool_ids: ["svc_nope"] }
    })
  })

  it("a field the decoder refused: Anthropic's type, the field named in the message", () => {
    const described = describeError(
      RequestError.invalidField("max_tokens", "Missing required parameter: 'max_tokens'.", "missing_required_parameter")
    )
    expect(messagesError(described)).toStrictEqual({
      status: 400,
      body: {
        type: "error",
        error: { type: "invalid_request_error", message: "Missing required parameter: 'max_tokens'." }
      }
    })
  })

  it("the gateway's own timeout keeps its 504, as an api_error", () => {
    const described = describeError(
      new ProviderError({ provider: "anthropic", reason: new UpstreamTimeout({ phase: "first_byte" }) })
    )
    expect(messagesError(described)).toMatchObject({ status: 504, body: { error: { type: "api_error" } } })
  })
})

describe("an upstream's own error, passed on unchanged", () => {
  it("Anthropic's 529 overloaded_error: its status, type and message, not the gateway's 502", () => {
    const described = upstreamFailure(529, "Overloaded", "overloaded_error")
    expect(described.status).toBe(502)
    expect(messagesError(described)).toStrictEqual({
      status: 529,
      body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }
    })
  })

  it("Anthropic's 400 'prompt is too long', word for word (Claude Code compacts on it)", () => {
    const message = "prompt is too long: 210345 tokens > 200000 maximum"
    expect(messagesError(upstreamFailure(400, message, "invalid_request_error"))).toStrictEqual({
      status: 400,
      body: { type: "error", error: { type: "invalid_request_error", message } }
    })
  })

  it("a 429 and a 500 of Anthropic's", () => {
    expect(
      messagesError(
        upstreamFailure(429, "Number of request tokens has exceeded your per-minute rate limit", "rate_limit_error")
      )
    )
      .toMatchObject({ status: 429, body: { error: { type: "rate_limit_error" } } })
    expect(messagesError(upstreamFailure(500, "Internal server error", "api_error")))
      .toMatchObject({ status: 500, body: { error: { type: "api_error", message: "Internal server error" } } })
  })

  it("no type from the upstream: the type of its status", () => {
    expect(messagesError(upstreamFailure(429, "slow down"))).toStrictEqual({
      status: 429,
      body: { type: "error", error: { type: "rate_limit_error", message: "slow down" } }
    })
  })

  it("another format's type means nothing to an Anthropic client: the type of the status", () => {
    expect(messagesError(upstreamFailure(500, "The server had an error", "server_error"))).toStrictEqual({
      status: 500,
      body: { type: "error", error: { type: "api_error", message: "The server had an error" } }
    })
  })

  it("the upstream refusing the gateway's credentials is not passed on: the gateway's 502", () => {
    for (const status of [401, 403]) {
      const described = upstreamFailure(status, "invalid x-api-key sk-ant-api03-...", "authentication_error")
      const { status: sent, body } = messagesError(described)
      expect(sent).toBe(502)
      expect(body.error.type).toBe("api_error")
      expect(body.error.message).not.toContain("sk-ant")
    }
  })
})

describe("the stream's error event", () => {
  it("event: error, the same body", () => {
    expect(messagesStreamError(upstreamFailure(529, "Overloaded", "overloaded_error"))).toBe(
      "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n"
    )
    expect(AnthropicMessages.streamError(problem(500), { id: "msg_1", created: 0, model: "m" })).toBe(
      "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"status 500\"}}\n\n"
    )
  })
})

describe("the dialect", () => {
  it("the key from x-api-key, else a bearer token; an empty x-api-key is none", () => {
    expect(AnthropicMessages.apiKey({ "x-api-key": "sk-svc-1" })).toBe("sk-svc-1")
    expect(AnthropicMessages.apiKey({ "x-api-key": "sk-svc-1", authorization: "Bearer sk-svc-2" })).toBe("sk-svc-1")
    expect(AnthropicMessages.apiKey({ authorization: "Bearer sk-svc-2" })).toBe("sk-svc-2")
    expect(AnthropicMessages.apiKey({ "x-api-key": "", authorization: "Bearer sk-svc-2" })).toBe("sk-svc-2")
    expect(AnthropicMessages.apiKey({ authorization: "Basic abc" })).toBeUndefined()
    expect(AnthropicMessages.apiKey({})).toBeUndefined()
  })

  it("message ids are msg_ and 24 base62 characters; the model as addressed", () => {
    const call = { model: "claude-opus-4-6" } as Parameters<typeof AnthropicMessages.identity>[0]
    const a = AnthropicMessages.identity(call)
    const b = AnthropicMessages.identity(call)
    expect(a.id).toMatch(/^msg_[0-9A-Za-z]{24}$/)
    expect(a.id).not.toBe(b.id)
    expect(a.model).toBe("claude-opus-4-6")
    expect(Math.abs(a.created - Date.now() / 1000)).toBeLessThan(5)
  })

  it("errorBody is the error body", () => {
    expect(AnthropicMessages.errorBody(problem(404))).toStrictEqual(messagesError(problem(404)))
  })
})
