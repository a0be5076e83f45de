/**
 * The adapter for Google's Gemini API: `POST {base}/models/{model}:generateContent`, and
 * `:streamGenerateContent?alt=sse` for streams, the key in `x-goog-api-key`. Errors keep Gemini's status
 * and message and fail over like every adapter's (429, 5xx); the mapping is in `GeminiRequest.ts` and
 * `GeminiResponse.ts`.
 */
import { Effect } from "effect"
import { isRecord } from "../../kernel/Json.ts"
import { type HttpFormat, makeHttpCalls } from "../HttpAdapter.ts"
import { listModelIds } from "../ModelList.ts"
import type { OpenAiCompatibleOptions } from "../openai/OpenAiCompatible.ts"
import type { Provider } from "../Provider.ts"
import { UpstreamTransport } from "../UpstreamTransport.ts"
import { droppedFields, requestBody } from "./GeminiRequest.ts"
import { decodeGeminiError, decodeResponse, streamDecoder } from "./GeminiResponse.ts"

export const DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/v1beta"

/** The models of Gemini's list (`{models: [{name: "models/gemini-2.5-flash", supportedGenerationMethods}]}`) that generate content. */
export const geminiModelIds = (json: unknown): ReadonlyArray<string> => {
  const models = isRecord(json) ? json["models"] : undefined
  if (!Array.isArray(models)) return []
  return models.flatMap((model) => {
    if (!isRecord(model) || typeof model["name"] !== "string") return []
    const methods = model["supportedGenerationMethods"]
    if (Array.isArray(methods) && !methods.includes("generateContent")) return []
    return [model["name"].replace(/^models\//, "")]
  })
}

/** The URL of a model's method under a base URL written with or without a trailing slash. */
export const methodUrl = (baseUrl: string, modelId: string, stream: boolean): string =>
  `${baseUrl.replace(/\/+$/, "")}/models/${encodeURIComponent(modelId)}:${
    stream ? "streamGenerateContent?alt=sse" : "generateContent"
  }`

/** Gemini over HTTP: the key in `x-goog-api-key`, a URL per model and per whole or streamed call. */
const geminiFormat = (baseUrl: string): HttpFormat => ({
  auth: { header: "x-goog-api-key", value: (key) => key },
  url: (call, stream) => methodUrl(baseUrl, call.modelId, stream),
  body: (call) => requestBody(call),
  decodeError: decodeGeminiError,
  decodeWhole: decodeResponse,
  decodeEvent: streamDecoder,
  cut: "upstream stream ended before its finish reason"
})

export const make = (options: OpenAiCompatibleOptions): Effect.Effect<Provider, never, UpstreamTransport> =>
  Effect.gen(function*() {
    const transport = yield* UpstreamTransport
    const calls = yield* makeHttpCalls(options, geminiFormat(options.baseUrl))
    const listModels = listModelIds(transport, {
      provider: options.name,
      request: { url: `${options.baseUrl.replace(/\/+$/, "")}/models?pageSize=1000`, headers: calls.headers },
      ids: geminiModelIds
    })
    return {
      name: options.name,
      adapter: "gemini",
      models: options.models,
      complete: calls.complete,
      open: calls.open,
      dropped: droppedFields,
      listModels
    } satisfies Provider
  })
