/**
 * The adapter for every upstream that speaks OpenAI's chat-completions API (OpenAI, Groq, Together,
 * Mistral, DeepSeek, OpenRouter, vLLM, llama.cpp, Ollama). One `Provider` per configured instance;
 * instances differ only in URL, key, extra headers and timeouts. The HTTP exchange is `HttpAdapter.ts`'s;
 * the wire mapping is in `OpenAiMapping.ts`.
 */
import { Effect, Result } from "effect"
import { bearerAuth, type HttpFormat, type HttpOptions, makeHttpCalls } from "../HttpAdapter.ts"
import { dataIds, listModelIds } from "../ModelList.ts"
import type { Provider } from "../Provider.ts"
import { endEvent, type EventStep } from "../SseChunks.ts"
import { UpstreamTransport } from "../UpstreamTransport.ts"
import {
  buildRequestBody,
  decodeChunk,
  decodeCompletion,
  decodeErrorResponse,
  droppedFields,
  withSessionCacheKey
} from "./OpenAiMapping.ts"

export interface OpenAiCompatibleOptions extends HttpOptions {
  /** e.g. `https://api.openai.com/v1`; requests go to `${baseUrl}/chat/completions`. */
  readonly baseUrl: string
  readonly models: ReadonlyArray<string>
}

export const adapter = "openai-compatible"

/** Where `chat/completions` lives under a base URL written with or without a trailing slash. */
export const completionsUrl = (baseUrl: string): string => `${baseUrl.replace(/\/+$/, "")}/chat/completions`

/** One SSE event of a chat-completions stream; `[DONE]` ends it. */
const eventOf = (modelId: string) => (data: string): EventStep => {
  if (data.trim() === "[DONE]") return endEvent
  const chunk = decodeChunk(data, modelId)
  return Result.isFailure(chunk) ? { _tag: "Fail", reason: chunk.failure } : { _tag: "Chunk", chunk: chunk.success }
}

/**
 * Chat completions over HTTP: a bearer key, one URL for whole and streamed calls. `sessionCacheKey`:
 * the upstream is OpenAI's own API, which takes `prompt_cache_key` (other servers may refuse it).
 */
export const chatFormat = (url: string, sessionCacheKey = false): HttpFormat => ({
  auth: bearerAuth,
  url: () => url,
  body: sessionCacheKey
    ? (call, stream) => withSessionCacheKey(buildRequestBody(call, stream), call)
    : buildRequestBody,
  decodeError: decodeErrorResponse,
  decodeWhole: decodeCompletion,
  decodeEvent: eventOf,
  cut: "upstream stream ended before [DONE]"
})

/**
 * A provider of OpenAI's own shape over `format`: its models listed at `{base}/models`. Chat completions
 * and the Responses API differ only in the format, the adapter's name and what travels as it came.
 */
export const makeOpenAiStyle = (
  options: OpenAiCompatibleOptions,
  spec: Pick<Provider, "adapter" | "nativeFormats" | "dropped"> & { readonly format: HttpFormat }
): Effect.Effect<Provider, never, UpstreamTransport> =>
  Effect.gen(function*() {
    const transport = yield* UpstreamTransport
    const calls = yield* makeHttpCalls(options, spec.format)
    return {
      name: options.name,
      adapter: spec.adapter,
      ...(spec.nativeFormats === undefined ? {} : { nativeFormats: spec.nativeFormats }),
      models: options.models,
      complete: calls.complete,
      open: calls.open,
      ...(spec.dropped === undefined ? {} : { dropped: spec.dropped }),
      listModels: listModelIds(transport, {
        provider: options.name,
        request: { url: `${options.baseUrl.replace(/\/+$/, "")}/models`, headers: calls.headers },
        ids: dataIds
      })
    } satisfies Provider
  })

export const make = (
  options: OpenAiCompatibleOptions & { readonly sessionCacheKey?: boolean | undefined }
): Effect.Effect<Provider, never, UpstreamTransport> =>
  makeOpenAiStyle(options, {
    adapter,
    format: chatFormat(completionsUrl(options.baseUrl), options.sessionCacheKey === true),
    dropped: droppedFields
  })
