/**
 * Gemini's answers in the gateway's model. The first candidate's parts: text, thought summaries
 * (`thought: true`) as reasoning, `functionCall`s as tool calls (with Gemini's id, else a new one), and a
 * `thoughtSignature` as the thinking's signature (sent back on the turn's first call by
 * `GeminiRequest.ts`). Finish reasons: `STOP` is `stop` (`tool_calls` when the model called a function),
 * `MAX_TOKENS` is `length`, the safety family (`SAFETY`, `RECITATION`, `BLOCKLIST`, `PROHIBITED_CONTENT`,
 * `SPII`, `IMAGE_SAFETY`) `content_filter`; a prompt blocked before any candidate (`promptFeedback.
 * blockReason`) is an empty answer finished by `content_filter`, as OpenAI reports a filtered answer.
 * Usage: thoughts count as completion (and reasoning) tokens, cached content as cached prompt tokens.
 * Errors are `{error:{code,message,status}}`, kept with their HTTP status.
 */
import { Result } from "effect"
import { randomBase62 } from "../../Ids.ts"
import type { Completion, CompletionChunk, ToolCall, Usage } from "../../kernel/Canonical.ts"
import { isRecord } from "../../kernel/Json.ts"
import { UpstreamBadResponse, UpstreamStatus } from "../ProviderError.ts"
import { type EventStep, skipEvent } from "../SseChunks.ts"

type Json = Readonly<Record<string, unknown>>

const count = (u: unknown): number => (typeof u === "number" && Number.isFinite(u) ? u : 0)

const FILTERED: ReadonlySet<string> = new Set([
  "SAFETY",
  "RECITATION",
  "BLOCKLIST",
  "PROHIBITED_CONTENT",
  "SPII",
  "IMAGE_SAFETY",
  "LANGUAGE"
])

const finishOf = (reason: unknown, calledTools: boolean): string | null => {
  if (typeof reason !== "string" || reason === "" || reason === "FINISH_REASON_UNSPECIFIED") return null
  if (reason === "MAX_TOKENS") return "length"
  if (FILTERED.has(reason)) return "content_filter"
  return calledTools ? "tool_calls" : "stop"
}

export const geminiUsage = (metadata: unknown): Usage => {
  if (!isRecord(metadata)) {
    return { promptTokens: 0, completionTokens: 0, totalTokens: 0, cachedTokens: 0, reasoningTokens: 0 }
  }
  const prompt = count(metadata["promptTokenCount"])
  const thoughts = count(metadata["thoughtsTokenCount"])
  const completion = count(metadata["candidatesTokenCount"]) + thoughts
  return {
    promptTokens: prompt,
    completionTokens: completion,
    totalTokens: typeof metadata["totalTokenCount"] === "number" ? metadata["totalTokenCount"] : prompt + completion,
    cachedTokens: count(metadata["cachedContentTokenCount"]),
    reasoningTokens: thoughts
  }
}

/** An error body (`{error:{code,message,status}}`, or an array of one) with its HTTP status. */
export const decodeGeminiError = (status: number, body: string): UpstreamStatus => {
  let json: unknown
  try {
    json = JSON.parse(body)
  } catch {
    json = undefined
  }
  const root = Array.isArray(json) ? json[0] : json
  const error = isRecord(root) ? root["error"] : undefined
  if (!isRecord(error)) {
    const text = body.trim().slice(0, 1000)
    return new UpstreamStatus({ status, message: text === "" ? `upstream returned ${status}` : text })
  }
  const message = typeof error["message"] === "string" ? error["message"].slice(0, 1000) : `upstream returned ${status}`
  const type = typeof error["status"] === "string" ? error["status"] : undefined
  return new UpstreamStatus({ status, message, ...(type === undefined ? {} : { type }) })
}

/** What one response (whole, or a streamed piece) says: its parts read, in the model's terms. */
interface Piece {
  readonly text: string
  readonly thought: string
  readonly signature: string | undefined
  readonly calls: Array<{ readonly id: string; readonly name: string; readonly args: string }>
  readonly finish: unknown
  readonly blocked: boolean
}

const readPiece = (json: Json): Piece => {
  const candidates = json["candidates"]
  const candidate = Array.isArray(candidates) && isRecord(candidates[0]) ? candidates[0] : undefined
  const content = candidate?.["content"]
  const parts = isRecord(content) && Array.isArray(content["parts"]) ? content["parts"] : []
  let text = ""
  let thought = ""
  let signature: string | undefined
  const calls: Array<{ id: string; name: string; args: string }> = []
  for (const part of parts) {
    if (!isRecord(part)) continue
    if (typeof part["thoughtSignature"] === "string" && signature === undefined) signature = part["thoughtSignature"]
    if (typeof part["text"] === "string") {
      if (part["thought"] === true) thought += part["text"]
      else text += part["text"]
    }
    const call = part["functionCall"]
    if (isRecord(call)) {
      calls.push({
        id: typeof call["id"] === "string" && call["id"] !== "" ? call["id"] : `call_${randomBase62(24)}`,
        name: typeof call["name"] === "string" ? call["name"] : "",
        args: JSON.stringify(isRecord(call["args"]) ? call["args"] : {})
      })
    }
  }
  const feedback = json["promptFeedback"]
  const blocked = candidate === undefined && isRecord(feedback) && typeof feedback["blockReason"] === "string"
  return { text, thought, signature, calls, finish: blocked ? "SAFETY" : candidate?.["finishReason"], blocked }
}

const parse = (text: string, what: string): Result.Result<Json, UpstreamBadResponse | UpstreamStatus> => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return Result.fail(
      new UpstreamBadResponse({ message: `upstream ${what} is not valid JSON: ${text.slice(0, 200)}` })
    )
  }
  if (Array.isArray(json) && isRecord(json[0])) json = json[0]
  if (!isRecord(json)) return Result.fail(new UpstreamBadResponse({ message: `upstream ${what} is not a JSON object` }))
  if (isRecord(json["error"])) {
    const code = json["error"]["code"]
    return Result.fail(decodeGeminiError(typeof code === "number" && code >= 400 && code <= 599 ? code : 502, text))
  }
  return Result.succeed(json)
}

const modelOf = (json: Json, fallback: string): string =>
  typeof json["modelVersion"] === "string" && json["modelVersion"] !== "" ? json["modelVersion"] : fallback

export const decodeResponse = (
  body: string,
  fallbackModel: string
): Result.Result<Completion, UpstreamBadResponse | UpstreamStatus> =>
  Result.map(parse(body, "response"), (json) => {
    const piece = readPiece(json)
    const toolCalls: Array<ToolCall> = piece.calls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: call.args }
    }))
    const message: Record<string, unknown> = {
      role: "assistant",
      content: piece.text === "" && toolCalls.length > 0 ? null : piece.text
    }
    if (toolCalls.length > 0) message["tool_calls"] = toolCalls
    if (piece.thought !== "" || piece.signature !== undefined) {
      message["reasoning_content"] = piece.thought
      message["thinking_blocks"] = [{ type: "thinking", thinking: piece.thought, signature: piece.signature ?? "" }]
    }
    return {
      model: modelOf(json, fallbackModel),
      choices: [{
        index: 0,
        message: message as Completion["choices"][number]["message"],
        finish_reason: finishOf(piece.finish, toolCalls.length > 0) ?? "stop"
      }],
      usage: geminiUsage(json["usageMetadata"]),
      extra: {}
    }
  })

/**
 * A decoder of one streamed answer (`streamGenerateContent?alt=sse`): each event is a whole
 * `GenerateContentResponse` with the new parts; the one with a finish reason is the last.
 */
export const streamDecoder = (fallbackModel: string) => {
  let calls = 0
  return (data: string): EventStep => {
    const parsed = parse(data, "stream event")
    if (Result.isFailure(parsed)) return { _tag: "Fail", reason: parsed.failure }
    const json = parsed.success
    const piece = readPiece(json)
    const delta: Record<string, unknown> = {}
    if (piece.thought !== "") delta["reasoning_content"] = piece.thought
    if (piece.signature !== undefined) delta["reasoning_signature"] = piece.signature
    if (piece.text !== "") delta["content"] = piece.text
    if (piece.calls.length > 0) {
      delta["tool_calls"] = piece.calls.map((call) => ({
        index: calls++,
        id: call.id,
        type: "function",
        function: { name: call.name, arguments: call.args }
      }))
    }
    const finish = finishOf(piece.finish, calls > 0)
    const usage = json["usageMetadata"] === undefined ? undefined : geminiUsage(json["usageMetadata"])
    if (finish === null && Object.keys(delta).length === 0 && usage === undefined) return skipEvent
    const chunk: CompletionChunk = {
      model: modelOf(json, fallbackModel),
      choices: [{ index: 0, delta, finish_reason: finish }],
      usage,
      extra: {}
    }
    return finish === null ? { _tag: "Chunk", chunk } : { _tag: "Last", chunk }
  }
}
