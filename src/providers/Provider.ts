/**
 * The contract between the gateway core and one provider adapter. An adapter maps a normalised call
 * to its wire format and back, and reports errors and usage in the shared shapes; failover, logging,
 * spans and the tool loop live in the core, once. One adapter per upstream format (registered in
 * `Adapters.ts`); one `Provider` value per configured provider instance (say `openai` and `groq`, both
 * OpenAI-compatible).
 */
import type { Effect, Scope } from "effect"
import type { ChatMessage, Completion, CompletionChunk, ToolDefinition } from "../kernel/Canonical.ts"
import type { NativeRequest, ToolChoice } from "../kernel/ChatCall.ts"
import type { ChunkPull } from "../kernel/ChunkPull.ts"
import type { WireFormat } from "../kernel/WireFormat.ts"
import type { ProviderError } from "./ProviderError.ts"

export interface ProviderCall {
  /** The model id the upstream knows: `model_id` of `author_id/model_id`, or the route's model. */
  readonly modelId: string
  readonly messages: ReadonlyArray<ChatMessage>
  /** The client's tools, then the injected shared tools. */
  readonly tools: ReadonlyArray<ToolDefinition> | undefined
  readonly toolChoice: ToolChoice | undefined
  readonly maxTokens: number | undefined
  /** Every other field the client sent (temperature, stop, seed, ...), to pass through untouched. */
  readonly passthrough: Readonly<Record<string, unknown>>
  /** Forwarded upstream as `x-request-id`. */
  readonly requestId: string
  /**
   * The client's own request, when the client wrote it in an upstream format and the conversation's
   * first `clientTurns` messages are still the ones decoded from it (a restored pending turn rewrites
   * them): an adapter of that format starts from `request.body`, sets the model id, adds the shared tools
   * of `tools` that the body lacks, and appends `messages.slice(clientTurns)` (the tool loop's turns).
   */
  readonly native?: { readonly request: NativeRequest; readonly clientTurns: number } | undefined
  /**
   * The client's session, for an upstream that routes its prompt cache by a key (OpenAI's
   * `prompt_cache_key`), when the client set none: one session's turns then land on the same cache.
   */
  readonly sessionId?: string | undefined
}

/** Whether `provider` sends a request of the client's `format` as it came. */
export const takesNative = (provider: Provider, format: WireFormat): boolean =>
  provider.nativeFormats?.includes(format) === true

export interface Provider {
  /** The configured instance name, e.g. `openai`, `groq`, `local`. */
  readonly name: string
  /** The wire format this instance speaks, a key of `Adapters.ts`'s table. */
  readonly adapter: string
  /**
   * The client formats (`NativeRequest.format`) whose requests this instance sends as they came, when
   * the call carries one; absent: none, every request is written from the gateway's model.
   */
  readonly nativeFormats?: ReadonlyArray<WireFormat>
  /** Models this instance is known to serve, for `GET /v1/models`; may be empty. */
  readonly models: ReadonlyArray<string>
  readonly complete: (call: ProviderCall) => Effect.Effect<Completion, ProviderError>
  /**
   * A streamed answer as a pull whose resources (the upstream body) live in `scope`. Usage must be asked
   * of the upstream always, so the log has it whatever the client asked for.
   */
  readonly open: (
    call: ProviderCall,
    scope: Scope.Scope
  ) => Effect.Effect<ChunkPull<CompletionChunk, ProviderError>, ProviderError>
  /**
   * What of `call` this target cannot take and leaves out (`top_k`, `cache_control`, a server tool), as
   * dotted field names for the answer's `x-svc-dropped-fields`. Pure; absent: drops nothing.
   */
  readonly dropped?: (call: ProviderCall) => ReadonlyArray<string>
  /**
   * The input tokens `call` would cost, counted by the upstream itself when its API can (Anthropic's
   * `count_tokens`); absent: the gateway counts with its own tokenizer.
   */
  readonly countTokens?: (call: ProviderCall) => Effect.Effect<number, ProviderError>
  /** The models the upstream itself lists (`GET /models`), for `GET /v1/models` when none are configured. */
  readonly listModels?: Effect.Effect<ReadonlyArray<string>, ProviderError>
}
