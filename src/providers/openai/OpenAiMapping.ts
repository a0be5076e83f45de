/**
 * Pure mapping between the gateway's normalised call and the OpenAI chat-completions wire format as
 * OpenAI-compatible upstreams speak it. No I/O: `OpenAiCompatible.ts` does the HTTP and feeds the
 * bodies, SSE payloads and error responses it reads through these functions, so every quirk of the
 * wire is testable as a table.
 */
import { Result, Schema } from "effect"
import { Choice, ChunkChoice } from "../../kernel/Canonical.ts"
import type { Completion, CompletionChunk, Usage } from "../../kernel/Canonical.ts"
import { isRecord } from "../../kernel/Json.ts"
import type { ProviderCall } from "../Provider.ts"
import { UpstreamBadResponse, UpstreamStatus } from "../ProviderError.ts"
import { stripForeignKeys } from "./ForeignKeys.ts"
import { isChoices, isChunkChoices } from "./WireGuards.ts"

/** Longest upstream error message passed on; some providers answer errors with whole HTML pages. */
export const maxErrorMessageLength = 1000

/** Top-level fields the gateway sets or maps itself; everything else on a response is passed through. */
const knownTopLevelKeys: ReadonlySet<string> = new Set(["id", "object", "created", "model", "choices", "usage"])

const count = (u: unknown): number => (typeof u === "number" && Number.isFinite(u) ? u : 0)

const truncate = (text: string): string =>
  text.length > maxErrorMessageLength ? `${text.slice(0, maxErrorMessageLength)}…` : text

const parseJson = (text: string): Result.Result<unknown, undefined> => {
  try {
    return Result.succeed(JSON.parse(text))
  } catch {
    return Result.fail(undefined)
  }
}

/** What of `call` goes out without: the keys of another format's client that this format refuses. */
export const droppedFields = (call: ProviderCall): ReadonlyArray<string> =>
  call.native === undefined ? [] : stripForeignKeys(call.messages, call.tools).dropped

/**
 * A body of OpenAI's own (its `prompt_cache_key` routes a session's turns to one cache): the session's
 * id as the key when the client set none.
 */
export const withSessionCacheKey = (body: Record<string, unknown>, call: ProviderCall): Record<string, unknown> =>
  call.sessionId === undefined || body["prompt_cache_key"] !== undefined
    ? body
    : { ...body, prompt_cache_key: call.sessionId }

/** The upstream request body. `stream_options` only when streaming: OpenAI rejects it otherwise. */
export const buildRequestBody = (call: ProviderCall, stream: boolean): Record<string, unknown> => {
  const { stream_options: clientStreamOptions, ...passthrough } = call.passthrough
  // a call decoded from another format may carry keys this format refuses (see ForeignKeys.ts)
  const { messages, tools } = call.native === undefined ? call : stripForeignKeys(call.messages, call.tools)
  const body: Record<string, unknown> = { ...passthrough, model: call.modelId, messages, stream }
  if (tools !== undefined) body["tools"] = tools
  if (call.toolChoice !== undefined) body["tool_choice"] = call.toolChoice
  if (call.maxTokens !== undefined) body["max_tokens"] = call.maxTokens
  if (stream) {
    // Usage is always requested so the gateway can log it, whatever the client asked for.
    body["stream_options"] = { ...(isRecord(clientStreamOptions) ? clientStreamOptions : {}), include_usage: true }
  }
  return body
}

/**
 * OpenAI's usage object in the shared shape. Providers disagree on the detail names (Chat Completions
 * vs Responses spelling) and some send `null` for what they do not count, so anything missing is 0.
 */
export const normalizeUsage = (usage: unknown): Usage => {
  if (!isRecord(usage)) {
    return { promptTokens: 0, completionTokens: 0, totalTokens: 0, cachedTokens: 0, reasoningTokens: 0 }
  }
  const promptTokens = count(usage["prompt_tokens"])
  const completionTokens = count(usage["completion_tokens"])
  const total = usage["total_tokens"]
  const detail = (names: ReadonlyArray<string>, field: string): number => {
    for (const name of names) {
      const details = usage[name]
      if (isRecord(details) && typeof details[field] === "number") return count(details[field])
    }
    return 0
  }
  return {
    promptTokens,
    completionTokens,
    totalTokens: typeof total === "number" && Number.isFinite(total) ? total : promptTokens + completionTokens,
    cachedTokens: detail(["prompt_tokens_details", "input_tokens_details"], "cached_tokens"),
    reasoningTokens: detail(["completion_tokens_details", "output_tokens_details"], "reasoning_tokens")
  }
}

const extraFields = (json: Readonly<Record<string, unknown>>): Record<string, unknown> => {
  const extra: Record<string, unknown> = {}
  // once per streamed event: a plain key loop, not an array of entries
  for (const key in json) {
    if (!knownTopLevelKeys.has(key) && Object.hasOwn(json, key)) extra[key] = json[key]
  }
  return extra
}

const modelOf = (json: Readonly<Record<string, unknown>>, fallbackModel: string): string => {
  const model = json["model"]
  return typeof model === "string" && model.length > 0 ? model : fallbackModel
}

const asText = (u: unknown): string | undefined =>
  typeof u === "string" ? u : u === undefined || u === null ? undefined : JSON.stringify(u)

const asCode = (u: unknown): string | null | undefined =>
  typeof u === "string" ? u : typeof u === "number" ? String(u) : u === null ? null : undefined

const asHttpStatus = (u: unknown): number | undefined => {
  const n = typeof u === "number" ? u : typeof u === "string" && /^\d{3}$/.test(u) ? Number(u) : Number.NaN
  return Number.isInteger(n) && n >= 100 && n <= 599 ? n : undefined
}

/**
 * The `UpstreamStatus` for an error object, in any of the shapes OpenAI-compatible servers use:
 * `{"error":{"message","type","code","param"}}`, `{"error":"text"}`, `{"message":...}`,
 * `{"detail":...}` (FastAPI, vLLM), or a one-element array of those (Gemini's compatibility layer).
 */
const statusFromPayload = (status: number, payload: unknown): UpstreamStatus | undefined => {
  const root = Array.isArray(payload) && payload.length > 0 ? payload[0] : payload
  if (!isRecord(root)) return undefined
  const error = root["error"]
  if (isRecord(error)) {
    const message = asText(error["message"]) ?? asText(error)
    const type = error["type"]
    const code = asCode(error["code"])
    const param = error["param"]
    return new UpstreamStatus({
      status,
      message: truncate(message ?? `upstream returned ${status}`),
      ...(typeof type === "string" ? { type } : {}),
      ...(code !== undefined ? { code } : {}),
      ...(typeof param === "string" || param === null ? { param } : {})
    })
  }
  const message = asText(error) ?? asText(root["message"]) ?? asText(root["detail"])
  return message === undefined ? undefined : new UpstreamStatus({ status, message: truncate(message) })
}

/** A non-2xx response, from its status and whatever body text could be read. */
export const decodeErrorResponse = (status: number, bodyText: string): UpstreamStatus => {
  const text = bodyText.trim()
  if (text.length === 0) return new UpstreamStatus({ status, message: `upstream returned ${status}` })
  const json = parseJson(text)
  const fromJson = Result.isSuccess(json) ? statusFromPayload(status, json.success) : undefined
  return fromJson ?? new UpstreamStatus({ status, message: truncate(text) })
}

/**
 * An error reported inside a 2xx body or an SSE event: the status is the error's own numeric
 * status or code when it has one (OpenRouter sends `{"error":{"code":429,...}}`), else 502.
 */
const embeddedError = (error: unknown): UpstreamStatus => {
  const status = (isRecord(error) ? asHttpStatus(error["status"]) ?? asHttpStatus(error["code"]) : undefined) ?? 502
  return statusFromPayload(status, { error }) ?? new UpstreamStatus({ status, message: `upstream returned ${status}` })
}

// the schemas only run when the allocation-free checks fail, to say what is malformed
const decodeChoices = (u: unknown) =>
  isChoices(u) ? Result.succeed(u) : Schema.decodeUnknownResult(Schema.Array(Choice))(u)
const decodeChunkChoices = (u: unknown) =>
  isChunkChoices(u) ? Result.succeed(u) : Schema.decodeUnknownResult(Schema.Array(ChunkChoice))(u)

const badResponse = (what: string, detail?: string): UpstreamBadResponse =>
  new UpstreamBadResponse({ message: truncate(detail === undefined ? what : `${what}: ${detail}`) })

const parseObject = (
  text: string,
  what: string
): Result.Result<Readonly<Record<string, unknown>>, UpstreamBadResponse | UpstreamStatus> => {
  const json = parseJson(text)
  if (Result.isFailure(json)) return Result.fail(badResponse(`upstream ${what} is not valid JSON`, text))
  if (!isRecord(json.success)) return Result.fail(badResponse(`upstream ${what} is not a JSON object`, text))
  const error = json.success["error"]
  if (error !== undefined && error !== null && json.success["choices"] === undefined) {
    return Result.fail(embeddedError(error))
  }
  return Result.succeed(json.success)
}

/** A whole (non-streaming) completion body. */
export const decodeCompletion = (
  bodyText: string,
  fallbackModel: string
): Result.Result<Completion, UpstreamBadResponse | UpstreamStatus> =>
  Result.flatMap(parseObject(bodyText, "response"), (json) => {
    const choices = decodeChoices(json["choices"])
    if (Result.isFailure(choices)) {
      return Result.fail(badResponse("upstream choices are malformed", choices.failure.message))
    }
    return Result.succeed({
      model: modelOf(json, fallbackModel),
      choices: choices.success,
      usage: normalizeUsage(json["usage"]),
      extra: extraFields(json)
    })
  })

/** The `data` of one SSE event other than `[DONE]`. */
export const decodeChunk = (
  data: string,
  fallbackModel: string
): Result.Result<CompletionChunk, UpstreamBadResponse | UpstreamStatus> =>
  Result.flatMap(parseObject(data, "stream event"), (json) => {
    // Some servers omit `choices` on a usage-only chunk instead of sending `[]`.
    const choices = decodeChunkChoices(json["choices"] ?? [])
    if (Result.isFailure(choices)) {
      return Result.fail(badResponse("upstream chunk choices are malformed", choices.failure.message))
    }
    const usage = json["usage"]
    return Result.succeed({
      model: modelOf(json, fallbackModel),
      choices: choices.success,
      usage: isRecord(usage) ? normalizeUsage(usage) : undefined,
      extra: extraFields(json)
    })
  })
