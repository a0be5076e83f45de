/**
 * Anthropic's answers in the gateway's model, as pure functions: a whole message as a `Completion`, the
 * events of a stream as chunks (one decoder per stream: it remembers the input usage of
 * `message_start` and which content block is which), and error bodies as `UpstreamStatus` with
 * Anthropic's own type and message, so an Anthropic client gets them back unchanged.
 */
import { Result } from "effect"
import type { ChunkChoice, Completion, CompletionChunk, NativeDetail, Usage } from "../../kernel/ChatWire.ts"
import { UpstreamBadResponse, UpstreamStatus } from "../ProviderError.ts"
import { assistantFromBlocks } from "./AssistantBlocks.ts"
import { endEvent, type EventStep, skipEvent } from "../SseChunks.ts"

type Json = Readonly<Record<string, unknown>>

const isRecord = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)
const count = (u: unknown): number => (typeof u === "number" && Number.isFinite(u) ? u : 0)
const MAX_MESSAGE = 1000
const truncate = (text: string) => (text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text)

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** Anthropic's stop reasons in chat-completions terms. */
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
 * to the prompt cache, which chat completions count as prompt tokens.
 */
export const usageOf = (usage: unknown): Usage => {
  const u = isRecord(usage) ? usage : {}
  const cacheRead = count(u["cache_read_input_tokens"])
  const cacheWrite = count(u["cache_creation_input_tokens"])
  const promptTokens = count(u["input_tokens"]) + cacheRead + cacheWrite
  const completionTokens = count(u["output_tokens"])
  return {
    promptTokens,
    completionTokens,
    totalTokens: promptTokens + completionTokens,
    cachedTokens: cacheRead,
    reasoningTokens: 0,
    ...(u["cache_creation_input_tokens"] === undefined ? {} : { cacheWriteTokens: cacheWrite })
  }
}

const nativeOf = (message: Json): NativeDetail => ({
  format: "anthropic",
  stop_reason: message["stop_reason"] ?? null,
  stop_sequence: message["stop_sequence"] ?? null
})

const bad = (message: string) => new UpstreamBadResponse({ message: truncate(message) })

/** The error a body reports, with the status it came with (or the one its type implies in a stream). */
const statusOf = (status: number, body: unknown): UpstreamStatus | undefined => {
  const error = isRecord(body) ? body["error"] : undefined
  if (!isRecord(error)) return undefined
  const type = typeof error["type"] === "string" ? error["type"] : undefined
  const message = typeof error["message"] === "string" ? error["message"] : JSON.stringify(error)
  return new UpstreamStatus({ status, message: truncate(message), ...(type === undefined ? {} : { type, code: type }) })
}

/** A non-2xx answer: Anthropic's `{"type":"error","error":{"type","message"}}`, or whatever text came. */
export const decodeError = (status: number, text: string): UpstreamStatus =>
  statusOf(status, parse(text)) ??
    new UpstreamStatus({ status, message: text.trim() === "" ? `upstream returned ${status}` : truncate(text.trim()) })

/** The status a stream's `error` event stands for: 529 when overloaded, as the API answers it unstreamed. */
const streamErrorStatus = (type: unknown): number =>
  type === "overloaded_error" ? 529 : type === "rate_limit_error" ? 429 : type === "api_error" ? 500 : 502

/** A whole message. */
export const decodeMessage = (text: string, fallbackModel: string): Result.Result<Completion, UpstreamBadResponse | UpstreamStatus> => {
  const json = parse(text)
  if (!isRecord(json)) return Result.fail(bad(`upstream response is not a JSON object: ${text}`))
  if (json["type"] === "error") return Result.fail(statusOf(502, json) ?? bad(text))
  if (!Array.isArray(json["content"])) return Result.fail(bad(`upstream message has no content: ${text}`))
  const model = typeof json["model"] === "string" && json["model"] !== "" ? json["model"] : fallbackModel
  return Result.succeed({
    model,
    choices: [{
      index: 0,
      message: assistantFromBlocks(json["content"]).message,
      finish_reason: finishReason(json["stop_reason"])
    }],
    usage: usageOf(json["usage"]),
    extra: {},
    native: nativeOf(json)
  })
}

type StreamStep = EventStep
const skip = skipEvent
const end = endEvent

/** A decoder for the events of one streamed message. */
export const streamDecoder = (fallbackModel: string) => {
  let model = fallbackModel
  let inputUsage: Json = {}
  /** Content block index -> tool call index, for the blocks that are tool calls. */
  const toolIndex = new Map<number, number>()
  let tools = 0

  const chunk = (delta: ChunkChoice["delta"], extra?: Partial<CompletionChunk>): StreamStep => ({
    _tag: "Chunk",
    chunk: { model, choices: [{ index: 0, delta, finish_reason: null }], usage: undefined, extra: {}, ...extra }
  })

  return (data: string): StreamStep => {
    const event = parse(data)
    if (!isRecord(event)) return { _tag: "Fail", reason: bad(`upstream stream event is not a JSON object: ${data}`) }
    switch (event["type"]) {
      case "message_start": {
        const message = isRecord(event["message"]) ? event["message"] : {}
        if (typeof message["model"] === "string" && message["model"] !== "") model = message["model"]
        inputUsage = isRecord(message["usage"]) ? message["usage"] : {}
        return chunk({ role: "assistant" }, { usage: usageOf(inputUsage) })
      }
      case "content_block_start": {
        const block = isRecord(event["content_block"]) ? event["content_block"] : {}
        const index = count(event["index"])
        if (block["type"] === "tool_use") {
          const call = tools++
          toolIndex.set(index, call)
          return chunk({
            tool_calls: [{ index: call, id: String(block["id"] ?? ""), type: "function", function: { name: String(block["name"] ?? ""), arguments: "" } }]
          })
        }
        if (block["type"] === "redacted_thinking") return chunk({ redacted_reasoning: block["data"] })
        if (block["type"] === "text" && typeof block["text"] === "string" && block["text"] !== "") return chunk({ content: block["text"] })
        return skip
      }
      case "content_block_delta": {
        const delta = isRecord(event["delta"]) ? event["delta"] : {}
        switch (delta["type"]) {
          case "text_delta":
            return chunk({ content: String(delta["text"] ?? "") })
          case "input_json_delta": {
            const call = toolIndex.get(count(event["index"]))
            if (call === undefined) return skip
            return chunk({ tool_calls: [{ index: call, function: { arguments: String(delta["partial_json"] ?? "") } }] })
          }
          case "thinking_delta":
            return chunk({ reasoning_content: String(delta["thinking"] ?? "") })
          case "signature_delta":
            return chunk({ reasoning_signature: String(delta["signature"] ?? "") })
          default:
            return skip
        }
      }
      case "message_delta": {
        const delta = isRecord(event["delta"]) ? event["delta"] : {}
        // the delta's usage is cumulative and may restate the input counts (newer API versions do)
        const usage = usageOf({ ...inputUsage, ...(isRecord(event["usage"]) ? event["usage"] : {}) })
        return {
          _tag: "Chunk",
          chunk: {
            model,
            choices: [{ index: 0, delta: {}, finish_reason: finishReason(delta["stop_reason"]) }],
            usage,
            extra: {},
            native: nativeOf(delta)
          }
        }
      }
      case "message_stop":
        return end
      case "error": {
        const error = isRecord(event["error"]) ? event["error"] : {}
        return { _tag: "Fail", reason: statusOf(streamErrorStatus(error["type"]), event) ?? bad(data) }
      }
      default:
        // ping, content_block_stop, and whatever the API adds later
        return skip
    }
  }
}
