/**
 * Errors in Anthropic's shape, `{"type":"error","error":{"type","message"}}`, with Anthropic's error
 * types by status and the gateway's own extra fields (`invalid_svc_tool_ids`) kept in the error object.
 * An upstream's own refusal or failure goes back as it came (status, type, message): Claude Code's
 * recovery matches on them, such as a 529 `overloaded_error` or "prompt is too long". The gateway's
 * credentials being refused (401/403 upstream) stays the gateway's 502: that message may echo a key.
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
  502: "api_error",
  503: "api_error",
  504: "api_error",
  529: "overloaded_error"
}

/** Anthropic's error type for a status; a status it has no type for is a request error or an API error. */
export const errorType = (status: number): string =>
  TYPES[status] ?? (status >= 500 ? "api_error" : "invalid_request_error")

/**
 * Every type the Messages API answers with. An upstream's type is passed on when it is one of them;
 * another format's (OpenAI's `server_error`, `insufficient_quota`) would mean nothing to an Anthropic
 * client, which gets the type of the status instead.
 */
const ANTHROPIC_TYPES: ReadonlySet<string> = new Set([...Object.values(TYPES), "billing_error", "timeout_error"])

export interface MessagesErrorBody {
  readonly type: "error"
  readonly error: { readonly type: string; readonly message: string; readonly [extra: string]: unknown }
}

export const messagesError = (problem: Problem): { readonly status: number; readonly body: MessagesErrorBody } => {
  const upstream = problem.upstream
  if (upstream !== undefined && upstream.status !== 401 && upstream.status !== 403) {
    const type = upstream.type !== undefined && ANTHROPIC_TYPES.has(upstream.type)
      ? upstream.type
      : errorType(upstream.status)
    return { status: upstream.status, body: { type: "error", error: { type, message: upstream.message } } }
  }
  return {
    status: problem.status,
    body: { type: "error", error: { type: errorType(problem.status), message: problem.message, ...problem.extra } }
  }
}

/** The `error` event that ends a stream that failed after it began. */
export const messagesStreamError = (problem: Problem): string =>
  `event: error\ndata: ${JSON.stringify(messagesError(problem).body)}\n\n`
