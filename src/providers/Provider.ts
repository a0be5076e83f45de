/**
 * The contract between the gateway core and one provider adapter. An adapter maps a normalised call
 * to its wire format and back, and reports errors and usage in the shared shapes; failover, logging and
 * the tool loop live in the core, once. One adapter per wire format; one `Provider` value per
 * configured provider instance (say `openai` and `groq`, both OpenAI-compatible).
 */
import type { Effect, Scope, Stream } from "effect"
import type { ChunkPull } from "../kernel/ChunkPull.ts"
import type { ChatMessage, Completion, CompletionChunk, ToolDefinition } from "../kernel/ChatWire.ts"
import type { ProviderError } from "./ProviderError.ts"

export interface ProviderCall {
  /** The model id the upstream knows: `model_id` of `author_id/model_id`. */
  readonly modelId: string
  readonly messages: ReadonlyArray<ChatMessage>
  readonly tools: ReadonlyArray<ToolDefinition> | undefined
  readonly toolChoice: "none" | "auto" | undefined
  readonly maxTokens: number | undefined
  /** Every other field the client sent (temperature, stop, seed, ...), to pass through untouched. */
  readonly passthrough: Readonly<Record<string, unknown>>
  /** Forwarded upstream as `x-request-id`. */
  readonly requestId: string
}

export interface Provider {
  /** The configured instance name, e.g. `openai`, `groq`, `local`. */
  readonly name: string
  /** The wire format this instance speaks, e.g. `openai-compatible`. */
  readonly adapter: string
  /** Models this instance is known to serve, for `GET /v1/models`; may be empty. */
  readonly models: ReadonlyArray<string>
  readonly complete: (call: ProviderCall) => Effect.Effect<Completion, ProviderError>
  /** Chunks as they arrive. Usage must be asked of the upstream always, so logs have it either way. */
  readonly stream: (call: ProviderCall) => Stream.Stream<CompletionChunk, ProviderError>
  /**
   * The same chunks as a pull whose resources live in the caller's scope, when the adapter offers one:
   * the core then skips the stream stages `stream` would cost per answer (see `ChunkPull.ts`).
   */
  readonly open?: (call: ProviderCall, scope: Scope.Scope) => Effect.Effect<ChunkPull<CompletionChunk, ProviderError>, ProviderError>
}
