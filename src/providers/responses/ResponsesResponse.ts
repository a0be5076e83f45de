/**
 * OpenAI Responses answers in the gateway's model. A whole `response`: its `message` items' text (and
 * refusals), `function_call` items as tool calls, `reasoning` items as thinking blocks whose signature is
 * the item's `encrypted_content` (so a client of any format can send them back), usage, and the finish
 * reason from `status` (`incomplete` by `max_output_tokens` is `length`). A stream: one chunk per event
 * that carries output (`response.output_text.delta`, `response.reasoning_summary_text.delta`, a function
 * call's `output_item.added` and argument deltas, a reasoning item's `output_item.done` with its
 * encrypted content as `reasoning_signature`), and `response.completed` / `response.incomplete` as the
 * last chunk, with the finish reason and usage. `response.failed` and `error` events are the upstream's
 * failure. Output items of hosted tools (`web_search_call`, ...) have no place in the model and are not read.
 */
import { Result } from "effect"
import type { Completion, CompletionChunk, ToolCall, ToolCallDelta, Usage } from "../../kernel/Canonical.ts"
import { isRecord } from "../../kernel/Json.ts"
import { UpstreamBadResponse, UpstreamStatus } from "../ProviderError.ts"
import { type EventStep, skipEvent } from "../SseChunks.ts"

type Json = Readonly<Record<string, unknown>>

const count = (u: unknown): number => (typeof u === "number" && Number.isFinite(u) ? u : 0)
const text = (u: unknown): string => (typeof u === "string" ? u : "")

export const responsesUsage = (usage: unknown): Usage => {
  if (!isRecord(usage)) {
    return { promptTokens: 0, completionTokens: 0, totalTokens: 0, cachedTokens: 0, reasoningTokens: 0 }
  }
  const input = count(usage["input_tokens"])
  const output = count(usage["output_tokens"])
  const inputDetails = usage["input_tokens_details"]
  const outputDetails = usage["output_tokens_details"]
  return {
    promptTokens: input,
    completionTokens: output,
    totalTokens: typeof usage["total_tokens"] === "number" ? usage["total_tokens"] : input + output,
    cachedTokens: isRecord(inputDetails) ? count(inputDetails["cached_tokens"]) : 0,
    reasoningTokens: isRecord(outputDetails) ? count(outputDetails["reasoning_tokens"]) : 0
  }
}

const finishOf = (response: Json, calledTools: boolean): string => {
  const details = response["incomplete_details"]
  if (response["status"] === "incomplete") {
    const reason = isRecord(details) ? details["reason"] : undefined
    return reason === "content_filter" ? "content_filter" : "length"
  }
  return calledTools ? "tool_calls" : "stop"
}

const summaryText = (summary: unknown): string =>
  Array.isArray(summary)
    ? summary.map((part) => (isRecord(part) ? text(part["text"]) : "")).filter((t) => t !== "").join("\n\n")
    : ""

/**
 * The status a failure inside a 200 stands for (a failed response, or an `error` event), from its code:
 * OpenAI sends these codes with 429, 503 and 500 when it can still answer with a status; a refused
 * input (`context_length_exceeded`, `invalid_prompt`, `invalid_image`, ...) is the client's 400, not
 * worth another target; anything else a 502, which fails over.
 */
const failureStatus = (code: string | undefined): number => {
  switch (code) {
    case "rate_limit_exceeded":
    case "insufficient_quota":
      return 429
    case "server_is_overloaded":
    case "slow_down":
      return 503
    case "server_error":
      return 500
    case "context_length_exceeded":
    case "invalid_prompt":
      return 400
    default:
      return code !== undefined &&
          (code.startsWith("invalid_") || code.startsWith("image_") || code === "empty_image_file")
        ? 400
        : 502
  }
}

/**
 * A failed response's `error` (`{code, message}`), or an `error` event: flat `{code, message, param}` as
 * documented, or the error object nested under `error` as the API also sends it.
 */
const failureOf = (failure: unknown): UpstreamStatus => {
  const error = isRecord(failure) && isRecord(failure["error"]) ? failure["error"] : isRecord(failure) ? failure : {}
  const message = text(error["message"])
  const code = typeof error["code"] === "string" ? error["code"] : undefined
  // an event's own `type` is `error`, not the error's
  const type = typeof error["type"] === "string" && error["type"] !== "error" ? error["type"] : undefined
  const param = typeof error["param"] === "string" ? error["param"] : undefined
  return new UpstreamStatus({
    status: failureStatus(code),
    message: message === "" ? "the upstream's response failed" : message,
    ...(type === undefined ? {} : { type }),
    ...(code === undefined ? {} : { code }),
    ...(param === undefined ? {} : { param })
  })
}

/** A whole `response` object as a completion. */
export const decodeResponse = (
  body: string,
  fallbackModel: string
): Result.Result<Completion, UpstreamBadResponse | UpstreamStatus> => {
  let json: unknown
  try {
    json = JSON.parse(body)
  } catch {
    return Result.fail(
      new UpstreamBadResponse({ message: `upstream response is not valid JSON: ${body.slice(0, 200)}` })
    )
  }
  if (!isRecord(json)) {
    return Result.fail(new UpstreamBadResponse({ message: "upstream response is not a JSON object" }))
  }
  if (json["status"] === "failed" || (isRecord(json["error"]) && json["output"] === undefined)) {
    return Result.fail(failureOf(json["error"]))
  }
  if (!Array.isArray(json["output"])) {
    return Result.fail(new UpstreamBadResponse({ message: "upstream response has no output" }))
  }
  let content = ""
  let refusal: string | undefined
  const toolCalls: Array<ToolCall> = []
  const thinking: Array<Json> = []
  for (const item of json["output"]) {
    if (!isRecord(item)) continue
    if (item["type"] === "message" && Array.isArray(item["content"])) {
      for (const part of item["content"]) {
        if (!isRecord(part)) continue
        if (part["type"] === "output_text") content += text(part["text"])
        else if (part["type"] === "refusal") refusal = (refusal ?? "") + text(part["refusal"])
      }
    } else if (item["type"] === "function_call") {
      toolCalls.push({
        id: text(item["call_id"]),
        type: "function",
        function: { name: text(item["name"]), arguments: text(item["arguments"]) }
      })
    } else if (item["type"] === "reasoning") {
      thinking.push({
        type: "thinking",
        thinking: summaryText(item["summary"]),
        signature: text(item["encrypted_content"])
      })
    }
  }
  const message: Record<string, unknown> = {
    role: "assistant",
    content: content === "" && toolCalls.length > 0 ? null : content
  }
  if (refusal !== undefined) message["refusal"] = refusal
  if (toolCalls.length > 0) message["tool_calls"] = toolCalls
  if (thinking.length > 0) {
    message["thinking_blocks"] = thinking
    message["reasoning_content"] = thinking.map((block) => block["thinking"]).join("\n\n")
  }
  const model = json["model"]
  return Result.succeed({
    model: typeof model === "string" && model !== "" ? model : fallbackModel,
    choices: [{
      index: 0,
      message: message as Completion["choices"][number]["message"],
      finish_reason: finishOf(json, toolCalls.length > 0)
    }],
    usage: responsesUsage(json["usage"]),
    extra: {}
  })
}

/**
 * Events that carry nothing the model lacks (their text came in deltas, the model in `response.completed`),
 * skipped by name without parsing: most of a stream's bytes are in them.
 */
const SKIPPED: ReadonlySet<string> = new Set([
  "response.created",
  "response.in_progress",
  "response.queued",
  "response.content_part.added",
  "response.content_part.done",
  "response.output_text.done",
  "response.output_text.annotation.added",
  "response.refusal.done",
  "response.reasoning_summary_text.done",
  "response.reasoning_summary_part.done",
  "response.reasoning_text.done",
  "response.function_call_arguments.done"
])

/**
 * A decoder of one streamed answer's events (it keeps which output item is which tool call). Events
 * without output for the model are skipped, by their name when the upstream names its events.
 */
export const streamDecoder = (fallbackModel: string) => {
  let model = fallbackModel
  /** Each call by its item id: its tool call index, and whether its arguments came. */
  const calls = new Map<string, { readonly index: number; streamed: boolean }>()
  let calledTools = false
  const chunk = (delta: Json, finish: string | null = null, usage?: Usage): CompletionChunk => ({
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
    usage,
    extra: {}
  })
  /** A call's first delta: its id (`call_id`), name and whatever arguments its item already has. */
  const callStart = (item: Json): ToolCallDelta => {
    const index = calls.size
    const args = text(item["arguments"])
    calls.set(text(item["id"]), { index, streamed: args !== "" })
    calledTools = true
    return {
      index,
      id: text(item["call_id"]),
      type: "function",
      function: { name: text(item["name"]), arguments: args }
    }
  }
  return (data: string, name?: string): EventStep => {
    if (name !== undefined && SKIPPED.has(name)) return skipEvent
    // an item's end matters for reasoning (its encrypted content) and a call not streamed in deltas
    if (
      name === "response.output_item.done" && !data.includes("\"reasoning\"") && !data.includes("\"function_call\"")
    ) return skipEvent
    let event: unknown
    try {
      event = JSON.parse(data)
    } catch {
      return {
        _tag: "Fail",
        reason: new UpstreamBadResponse({ message: `upstream stream event is not valid JSON: ${data.slice(0, 200)}` })
      }
    }
    if (!isRecord(event)) return skipEvent
    switch (event["type"]) {
      case "response.output_text.delta":
        return { _tag: "Chunk", chunk: chunk({ content: text(event["delta"]) }) }
      case "response.refusal.delta":
        return { _tag: "Chunk", chunk: chunk({ refusal: text(event["delta"]) }) }
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta":
        return { _tag: "Chunk", chunk: chunk({ reasoning_content: text(event["delta"]) }) }
      case "response.reasoning_summary_part.added":
        // summary parts after the first are paragraphs of the same thinking
        return count(event["summary_index"]) > 0
          ? { _tag: "Chunk", chunk: chunk({ reasoning_content: "\n\n" }) }
          : skipEvent
      case "response.output_item.added": {
        const item = event["item"]
        if (!isRecord(item) || item["type"] !== "function_call") return skipEvent
        return { _tag: "Chunk", chunk: chunk({ tool_calls: [callStart(item)] }) }
      }
      case "response.function_call_arguments.delta": {
        const call = calls.get(text(event["item_id"]))
        if (call === undefined) return skipEvent
        call.streamed = true
        return {
          _tag: "Chunk",
          chunk: chunk({ tool_calls: [{ index: call.index, function: { arguments: text(event["delta"]) } }] })
        }
      }
      case "response.output_item.done": {
        const item = event["item"]
        if (!isRecord(item)) return skipEvent
        if (item["type"] === "function_call") {
          // a server that sends a call whole, in its item's end only, or its arguments without deltas
          const call = calls.get(text(item["id"]))
          if (call === undefined) return { _tag: "Chunk", chunk: chunk({ tool_calls: [callStart(item)] }) }
          const args = text(item["arguments"])
          if (call.streamed || args === "") return skipEvent
          call.streamed = true
          return { _tag: "Chunk", chunk: chunk({ tool_calls: [{ index: call.index, function: { arguments: args } }] }) }
        }
        const encrypted = item["type"] === "reasoning" ? text(item["encrypted_content"]) : ""
        return encrypted === "" ? skipEvent : { _tag: "Chunk", chunk: chunk({ reasoning_signature: encrypted }) }
      }
      case "response.completed":
      case "response.incomplete": {
        const response = isRecord(event["response"]) ? event["response"] : {}
        if (typeof response["model"] === "string" && response["model"] !== "") model = response["model"]
        return { _tag: "Last", chunk: chunk({}, finishOf(response, calledTools), responsesUsage(response["usage"])) }
      }
      case "response.failed": {
        const response = isRecord(event["response"]) ? event["response"] : {}
        return { _tag: "Fail", reason: failureOf(response["error"]) }
      }
      case "error":
        return { _tag: "Fail", reason: failureOf(event) }
      case "response.created": {
        const response = event["response"]
        if (isRecord(response) && typeof response["model"] === "string" && response["model"] !== "") {
          model = response["model"]
        }
        return skipEvent
      }
      default:
        return skipEvent
    }
  }
}
