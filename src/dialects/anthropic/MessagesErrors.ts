/**
 * Errors in Anthropic's shape, `{"type":"error","error":{"type","message"}}`, with Anthropic's error
 * types by status. An upstream's own refusal or failure goes back as it came (status, type, message):
 * Claude Code's recovery matches on them, such as a 529 `overloaded_error` or "prompt is too long".
 * The gateway's credentials being refused stays the gateway's 502: that message may echo a provider key.
 */
import type { Problem } from "../../core/Problem.ts"

const TYPES: Readonly<Record<number, string>> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error"
}

const typeOf = (status: number): string => TYPES[status] ?? (status >= 500 ? "api_error" : "invalid_request_error")

/** Anthropic's own error types, which an upstream's `type` is taken as when it is one of them. */
const ANTHROPIC_TYPES = new Set([...Object.values(TYPES), "billing_error", "timeout_error"])

export const messagesError = (problem: Problem): { readonly status: number; readonly body: unknown } => {
  const upstream = problem.upstream
  if (upstream !== undefined && upstream.status !== 401 && upstream.status !== 403) {
    const type = upstream.type !== undefined && ANTHROPIC_TYPES.has(upstream.type) ? upstream.type : typeOf(upstream.status)
    return { status: upstream.status, body: { type: "error", error: { type, message: upstream.message } } }
  }
  return {
    status: problem.status,
    body: { type: "error", error: { type: typeOf(problem.status), message: problem.message, ...problem.extra } }
  }
}

export const messagesStreamError = (problem: Problem): string =>
  `event: error\ndata: ${JSON.stringify(messagesError(problem).body)}\n\n`
