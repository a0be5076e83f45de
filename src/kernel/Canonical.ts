/**
 * The gateway's canonical model of a chat, as Schemas: messages, tools, completions, chunks and usage,
 * which every inbound format is read into and every upstream format written from (the request around
 * them is `ChatCall.ts`). Its shape is OpenAI's chat-completions wire format, so OpenAI clients and
 * OpenAI-compatible providers speak it as it is; other formats' dialects and adapters map to it (see
 * docs/architecture.md for what they carry beyond it).
 * Objects that users extend (messages, choices, tool calls) keep their unknown keys, so fields such as
 * `logprobs` or `system_fingerprint` pass through untouched.
 */
import { Schema } from "effect"
import type { WireFormat } from "./WireFormat.ts"

const Extra = [Schema.Record(Schema.String, Schema.Unknown)] as const
/** A struct that keeps any keys it does not name. */
const Open = <const F extends Schema.Struct.Fields>(fields: F) => Schema.StructWithRest(Schema.Struct(fields), Extra)

export const ToolCall = Open({
  id: Schema.String,
  type: Schema.Literal("function"),
  function: Open({ name: Schema.String, arguments: Schema.String })
})
export type ToolCall = typeof ToolCall.Type

export const Role = Schema.Literals(["system", "developer", "user", "assistant", "tool", "function"])

export const ContentPart = Open({ type: Schema.String })
export type ContentPart = typeof ContentPart.Type

export const ChatMessage = Open({
  role: Role,
  content: Schema.optionalKey(Schema.NullOr(Schema.Union([Schema.String, Schema.Array(ContentPart)]))),
  name: Schema.optionalKey(Schema.String),
  tool_call_id: Schema.optionalKey(Schema.String),
  refusal: Schema.optionalKey(Schema.NullOr(Schema.String)),
  tool_calls: Schema.optionalKey(Schema.Array(ToolCall))
})
export type ChatMessage = typeof ChatMessage.Type

export const ToolDefinition = Open({
  type: Schema.Literal("function"),
  function: Open({
    name: Schema.NonEmptyString,
    description: Schema.optionalKey(Schema.String),
    parameters: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
  })
})
export type ToolDefinition = typeof ToolDefinition.Type

/** Token counts in the one shape every adapter reports; rendered to the wire by `renderUsage`. */
export interface Usage {
  readonly promptTokens: number
  readonly completionTokens: number
  readonly totalTokens: number
  /** Prompt tokens read from the provider's prompt cache (included in `promptTokens`). */
  readonly cachedTokens: number
  readonly reasoningTokens: number
  /**
   * Prompt tokens written to the provider's prompt cache (included in `promptTokens`), when the provider
   * says (Anthropic's `cache_creation_input_tokens`); absent means none were reported.
   */
  readonly cacheWriteTokens?: number
  /**
   * Of `cacheWriteTokens`, those written to the 1-hour cache, billed at a higher rate (Anthropic's
   * `cache_creation.ephemeral_1h_input_tokens`); absent means none were reported.
   */
  readonly cacheWrite1hTokens?: number
}

export const emptyUsage: Usage = {
  promptTokens: 0,
  completionTokens: 0,
  totalTokens: 0,
  cachedTokens: 0,
  reasoningTokens: 0
}

export const addUsage = (a: Usage, b: Usage): Usage => {
  const sum: Usage = {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    cachedTokens: a.cachedTokens + b.cachedTokens,
    reasoningTokens: a.reasoningTokens + b.reasoningTokens
  }
  if (a.cacheWriteTokens === undefined && b.cacheWriteTokens === undefined) return sum
  const written = { ...sum, cacheWriteTokens: (a.cacheWriteTokens ?? 0) + (b.cacheWriteTokens ?? 0) }
  return a.cacheWrite1hTokens === undefined && b.cacheWrite1hTokens === undefined
    ? written
    : { ...written, cacheWrite1hTokens: (a.cacheWrite1hTokens ?? 0) + (b.cacheWrite1hTokens ?? 0) }
}

/** OpenAI's usage object, plus the `input_tokens_details` / `output_tokens_details` names the spec asks for. */
export const renderUsage = (usage: Usage) => ({
  prompt_tokens: usage.promptTokens,
  completion_tokens: usage.completionTokens,
  total_tokens: usage.totalTokens,
  input_tokens_details: { cached_tokens: usage.cachedTokens },
  output_tokens_details: { reasoning_tokens: usage.reasoningTokens },
  prompt_tokens_details: { cached_tokens: usage.cachedTokens },
  completion_tokens_details: { reasoning_tokens: usage.reasoningTokens }
})

export const AssistantMessage = Open({
  role: Schema.Literal("assistant"),
  content: Schema.NullOr(Schema.String),
  tool_calls: Schema.optionalKey(Schema.Array(ToolCall)),
  refusal: Schema.optionalKey(Schema.NullOr(Schema.String))
})
export type AssistantMessage = typeof AssistantMessage.Type

export const Choice = Open({
  index: Schema.Number,
  message: AssistantMessage,
  finish_reason: Schema.NullOr(Schema.String)
})
export type Choice = typeof Choice.Type

/** A whole completion as an adapter returns it; the gateway sets `id`, `created` and `model` on the wire. */
export interface Completion {
  /** The model the provider says answered (for logs); the client sees the model it addressed. */
  readonly model: string
  readonly choices: ReadonlyArray<Choice>
  readonly usage: Usage
  /** Top-level fields to pass through, such as `system_fingerprint` or `service_tier`. */
  readonly extra: Readonly<Record<string, unknown>>
  /** What the upstream said in its own format's terms (Anthropic's `stop_reason`), for a client in that format. */
  readonly native?: NativeDetail | undefined
}

/** Upstream details that only a client of the same format reads: `format` names it. */
export interface NativeDetail {
  readonly format: WireFormat
  readonly [key: string]: unknown
}

export const ToolCallDelta = Open({
  index: Schema.Number,
  id: Schema.optionalKey(Schema.String),
  type: Schema.optionalKey(Schema.Literal("function")),
  function: Schema.optionalKey(Open({
    name: Schema.optionalKey(Schema.String),
    arguments: Schema.optionalKey(Schema.String)
  }))
})
export type ToolCallDelta = typeof ToolCallDelta.Type

export const Delta = Open({
  role: Schema.optionalKey(Schema.String),
  content: Schema.optionalKey(Schema.NullOr(Schema.String)),
  tool_calls: Schema.optionalKey(Schema.Array(ToolCallDelta)),
  refusal: Schema.optionalKey(Schema.NullOr(Schema.String))
})
export type Delta = typeof Delta.Type

export const ChunkChoice = Open({
  index: Schema.Number,
  delta: Delta,
  finish_reason: Schema.optionalKey(Schema.NullOr(Schema.String))
})
export type ChunkChoice = typeof ChunkChoice.Type

/**
 * One streamed piece as an adapter yields it; usage arrives on the chunk that carries it, if any (the
 * usage so far of the answer: a later chunk's replaces an earlier one's). Besides OpenAI's delta keys,
 * a delta may carry thinking: `reasoning_content` (its text), `reasoning_signature` (the signature that
 * closes the current thinking block) and `redacted_reasoning` (one whole redacted block's data).
 */
export interface CompletionChunk {
  readonly model: string
  readonly choices: ReadonlyArray<ChunkChoice>
  readonly usage: Usage | undefined
  readonly extra: Readonly<Record<string, unknown>>
  readonly native?: NativeDetail | undefined
}
