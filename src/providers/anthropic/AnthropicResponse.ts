/**
 * Anthropic's answers in the gateway's model, as pure functions (the mapping is
 * /tmp/spec/anthropic-mapping.md's "Answers" and "Streams" directions): a whole message as a
 * `Completion`, the events of a stream as chunks (one decoder per stream: it remembers the input usage
 * of `message_start` and which content block is which tool call), and error bodies as `UpstreamStatus`
 * with Anthropic's own `error.type` and message, so an Anthropic client gets them back unchanged.
 * What only an Anthropic client reads (the stop reason and sequence as they came) goes in `native`;
 * `extra` stays empty, so nothing Anthropic-specific reaches an OpenAI client.
 */
import { Result } from "effect"
import { assistantFromBlocks } from "../../formats/anthropic/AssistantBlocks.ts"
import type { ChunkChoice, Completion, NativeDetail, Usage } from "../../kernel/Canonical.ts"
import { isRecord } from "../../kernel/Json.ts"
import { UpstreamBadResponse, UpstreamStatus } from "../ProviderError.ts"
import { endEvent, type EventStep, skipEvent } from "../SseChunks.ts"

type Json = Readonly<Record<string, unknown>>

const isCount = (u: unknown): u is number => typeof u === "number" && Number.isFinite(u)
const count = (u: unknown): number => (isCount(u) ? u : 0)
const MAX_MESSAGE = 1000
const truncate = (text: string) => (text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text)

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/**
 * Anthropic's stop reasons in chat-completions terms: `end_turn`, `stop_sequence`, `pause_turn` and
 * any other -> `stop`, `max_tokens` and `model_context_window_exceeded` -> `length`, `tool_use` ->
 * `tool_calls`, `refusal` -> `content_filter`.
 */
export const finishReason = (stopReason: unknown): string => {
  switch (stopReason) {
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length"
    case "tool_use":
      return "tool_calls"
    case "refusal":
      return "content_filter"
    default:
      return "stop"
  }
}

/**
 * Anthropic's usage in the shared shape: its `input_tokens` leaves out what was read from and written
 * to the prompt cache, which chat completions count as prompt tokens. `cacheWriteTokens` is set when
 * the usage has a `cache_creation_input_tokens` number (0 included), absent otherwise; of those,
 * `cacheWrite1hTokens` are the ones its `cache_creation` breakdown puts in the 1-hour cache.
 */
export const usageOf = (usage: unknown): Usage => {
  const u = isRecord(usage) ? usage : {}
  const cacheRead = count(u["cache_read_input_tokens"])
  const cacheWrite = count(u["cache_creation_input_tokens"])
  const oneHour = isRecord(u["cache_creation"]) ? u["cache_creation"]["ephemeral_1h_input_tokens"] : undefined
  const promptTokens = count(u["input_tokens"]) + cacheRead + cacheWrite
  const completionTokens = count(u["output_tokens"])
  return {
    promptTokens,
    completionTokens,
    totalTokens: promptTokens + completionTokens,
    cachedTokens: cacheRead,
    reasoningTokens: 0,
    ...(isCount(u["cache_creation_input_tokens"]) ? { cacheWriteTokens: cacheWrite } : {}),
    ...(isCount(oneHour) ? { cacheWrite1hTokens: Math.min(oneHour, cacheWrite) } : {})
  }
}

const nativeOf = (message: Json): NativeDetail => ({
  format: "anthropic",
  stop_reason: message["stop_reason"] ?? null,
  stop_sequence: message["stop_sequence"] ?? null
})

const bad = (message: string) => new UpstreamBadResponse({ message: truncate(message) })

/**
 * The error a body reports (`{"type":"error","error":{"type","message"},"request_id"}`), with the status
 * it came with: Anthropic's `error.type` as `type`, its message as it is.
 */
const statusOf = (status: number, body: unknown): UpstreamStatus | undefined => {
  const error = isRecord(body) ? body["error"] : undefined
  if (!isRecord(error)) return undefined
  const type = typeof error["type"] === "string" ? error["type"] : undefined
  const message = typeof error["message"] === "string" ? error["message"] : `upstream returned ${status}`
  return new UpstreamStatus({ status, message, ...(type === undefined ? {} : { type }) })
}

/** A non-2xx answer: Anthropic's error body, or whatever text came (cut to 1000 characters). */
export const decodeError = (status: number, text: string): UpstreamStatus =>
  statusOf(status, parse(text)) ??
    new UpstreamStatus({ status, message: text.trim() === "" ? `upstream returned ${status}` : truncate(text.trim()) })

/**
 * The status an error that came inside a 200 (an `error` event, or a JSON error body) stands for, from
 * its type: 529 `overloaded_error` (as the API answers it unstreamed), 500 `api_error`, else 502.
 */
export const embeddedErrorStatus = (type: unknown): number =>
  type === "overloaded_error" ? 529 : type === "api_error" ? 500 : 502

/** An error that came inside a 200, as its type's status. */
const embeddedError = (body: Json, text: string): UpstreamStatus | UpstreamBadResponse => {
  const error = body["error"]
  return statusOf(embeddedErrorStatus(isRecord(error) ? error["type"] : undefined), body) ??
    bad(`upstream sent an error without details: ${text}`)
}

/** A whole message. */
export const decodeMessage = (
  text: string,
  fallbackModel: string
): Result.Result<Completion, UpstreamBadResponse | UpstreamStatus> => {
  const json = parse(text)
  if (!isRecord(json)) return Result.fail(bad(`upstream response is not a JSON object: ${text}`))
  if (json["type"] === "error") return Result.fail(embeddedError(json, text))
  if (!Array.isArray(json["content"])) return Result.fail(bad(`upstream message has no content: ${text}`))
  const model = typeof json["model"] === "string" && json["model"] !== "" ? json["model"] : fallbackModel
  const message = assistantFromBlocks(json["content"]).message
  return Result.succeed({
    model,
    choices: [{
      index: 0,
      // no text at all is `null`, as chat completions write it
      message: message.content === "" ? { ...message, content: null } : message,
      finish_reason: finishReason(json["stop_reason"])
    }],
    usage: usageOf(json["usage"]),
    extra: {},
    native: nativeOf(json)
  })
}

/** Usage fields a `message_delta` may restate; only numbers replace what `message_start` said. */
const USAGE_FIELDS = [
  "input_tokens",
  "output_tokens",
  "cache_read_input_tokens",
  "cache_creation_input_tokens"
] as const

const failWith = (reason: UpstreamBadResponse | UpstreamStatus): EventStep => ({ _tag: "Fail", reason })

/**
 * A decoder for the events of one streamed message (`data` of each SSE event; the event's `type` is in
 * it): `message_start` -> the role and the input usage; a `tool_use` block's start -> a tool call
 * (indexed from 0 among the tool uses), its `input_json_delta`s -> its arguments; text, thinking and
 * signature deltas -> `content`, `reasoning_content`, `reasoning_signature`; a redacted thinking block ->
 * `redacted_reasoning`; `message_delta` -> the finish reason, `native` and the whole usage;
 * `message_stop` ends the answer; `error` fails it; `ping`, `content_block_stop`, server tool blocks and
 * unknown events are skipped.
 */
export const streamDecoder = (fallbackModel: string): (data: string) => EventStep => {
  let model = fallbackModel
  let inputUsage: Json = {}
  /** Content block index -> tool call index, for the blocks that are tool calls. */
  const toolIndex = new Map<number, number>()
  let tools = 0

  const chunk = (delta: ChunkChoice["delta"], usage?: Usage): EventStep => ({
    _tag: "Chunk",
    chunk: { model, choices: [{ index: 0, delta, finish_reason: null }], usage, extra: {} }
  })

  const blockStart = (event: Json): EventStep => {
    const block = isRecord(event["content_block"]) ? event["content_block"] : {}
    switch (block["type"]) {
      case "tool_use": {
        const call = tools++
        toolIndex.set(count(event["index"]), call)
        const id = typeof block["id"] === "string" ? block["id"] : ""
        const name = typeof block["name"] === "string" ? block["name"] : ""
        return chunk({ tool_calls: [{ index: call, id, type: "function", function: { name, arguments: "" } }] })
      }
      case "redacted_thinking":
        return chunk({ redacted_reasoning: typeof block["data"] === "string" ? block["data"] : "" })
      // the API starts text and thinking blocks empty; should one ever start with text, it is not lost
      case "text":
        return typeof block["text"] === "string" && block["text"] !== "" ? chunk({ content: block["text"] }) : skipEvent
      case "thinking":
        return typeof block["thinking"] === "string" && block["thinking"] !== ""
          ? chunk({ reasoning_content: block["thinking"] })
          : skipEvent
      default:
        return skipEvent
    }
  }

  const blockDelta = (event: Json): EventStep => {
    const delta = isRecord(event["delta"]) ? event["delta"] : {}
    const text = (key: string): string => (typeof delta[key] === "string" ? delta[key] : "")
    switch (delta["type"]) {
      case "text_delta":
        return chunk({ content: text("text") })
      case "input_json_delta": {
        // a server tool's input (web search) is the API's business, not a tool call of the client's
        const call = toolIndex.get(count(event["index"]))
        return call === undefined
          ? skipEvent
          : chunk({ tool_calls: [{ index: call, function: { arguments: text("partial_json") } }] })
      }
      case "thinking_delta":
        return chunk({ reasoning_content: text("thinking") })
      case "signature_delta":
        return chunk({ reasoning_signature: text("signature") })
      default:
        return skipEvent
    }
  }

  const messageDelta = (event: Json): EventStep => {
    const delta = isRecord(event["delta"]) ? event["delta"] : {}
    // the counts are cumulative; newer API versions restate the input ones here too
    const usage: Record<string, unknown> = { ...inputUsage }
    const restated = isRecord(event["usage"]) ? event["usage"] : {}
    for (const field of USAGE_FIELDS) if (isCount(restated[field])) usage[field] = restated[field]
    return {
      _tag: "Chunk",
      chunk: {
        model,
        choices: [{ index: 0, delta: {}, finish_reason: finishReason(delta["stop_reason"]) }],
        usage: usageOf(usage),
        extra: {},
        native: nativeOf(delta)
      }
    }
  }

  return (data) => {
    const event = parse(data)
    if (!isRecord(event)) return failWith(bad(`upstream stream event is not a JSON object: ${data}`))
    switch (event["type"]) {
      case "message_start": {
        const message = isRecord(event["message"]) ? event["message"] : {}
        if (typeof message["model"] === "string" && message["model"] !== "") model = message["model"]
        inputUsage = isRecord(message["usage"]) ? message["usage"] : {}
        return chunk({ role: "assistant" }, usageOf(inputUsage))
      }
      case "content_block_start":
        return blockStart(event)
      case "content_block_delta":
        return blockDelta(event)
      case "message_delta":
        return messageDelta(event)
      case "message_stop":
        return endEvent
      case "error": {
        const error = isRecord(event["error"]) ? event["error"] : {}
        return failWith(statusOf(embeddedErrorStatus(error["type"]), event) ?? bad(data))
      }
      default:
        // ping, content_block_stop, and whatever the API adds later
        return skipEvent
    }
  }
}
