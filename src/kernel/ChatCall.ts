/**
 * The gateway's own request model: what every inbound dialect decodes a client's request into, and what
 * the core acts on. Its messages, tools and answers are the chat-completions shapes of `Canonical.ts`,
 * the richest common ground of the formats; what a format has beyond them travels as open keys (such as
 * `cache_control` on a content part or `thinking_blocks` on an assistant message) or, when the client's
 * format is the upstream's, as the client's own request in `native`.
 */
import type { ChatMessage, ToolDefinition } from "./Canonical.ts"
import type { WireFormat } from "./WireFormat.ts"

/**
 * Every tool choice the formats know: OpenAI's `none`, `auto`, `required` and a named function;
 * Anthropic's `none`, `auto`, `any` (= `required`) and `tool` (= a named function).
 */
export type ToolChoice =
  | "none"
  | "auto"
  | "required"
  | { readonly type: "function"; readonly function: { readonly name: string } }

/** The name a tool choice forces, if it names one. */
export const forcedToolName = (choice: ToolChoice | undefined): string | undefined =>
  typeof choice === "object" ? choice.function.name : undefined

/**
 * The client's request as it came, kept when its format is also an upstream format, so that a request
 * that goes out in the same format loses nothing (thinking signatures, cache breakpoints, betas): the
 * adapter for `format` starts from `body` and changes only what the gateway must (the model id, shared
 * tools, the turns the tool loop added).
 */
export interface NativeRequest {
  /** The upstream format the body is written in, e.g. `anthropic`. */
  readonly format: WireFormat
  readonly body: Readonly<Record<string, unknown>>
  /** Headers of the client's that this format sends upstream as they are (`anthropic-beta`). */
  readonly headers: Readonly<Record<string, string>>
}

export interface ChatCall {
  /** As the client addressed it: `author_id/model_id`, or a bare name where `bareModelAuthor` says whose. */
  readonly model: string
  /**
   * The author a model named without one belongs to, for formats whose clients send bare names (Claude
   * Code's `claude-sonnet-4-5` is `anthropic/claude-sonnet-4-5`) unless a route matches the name itself.
   */
  readonly bareModelAuthor?: string | undefined
  readonly messages: ReadonlyArray<ChatMessage>
  readonly maxTokens: number | undefined
  readonly stream: boolean
  readonly includeUsage: boolean
  /** Client `stream_options` keys other than `include_usage`, for the upstream. */
  readonly streamOptions: Readonly<Record<string, unknown>>
  readonly tools: ReadonlyArray<ToolDefinition> | undefined
  readonly toolChoice: ToolChoice | undefined
  readonly svcToolIds: ReadonlyArray<string>
  readonly svcPendingId: string | undefined
  readonly tags: ReadonlyArray<string>
  /** Fields the gateway does not act on, in chat-completions terms (temperature, stop, seed, ...). */
  readonly passthrough: Readonly<Record<string, unknown>>
  /** The client's request in its own format, when that format can also go upstream. */
  readonly native?: NativeRequest | undefined
  /** Fields the client sent that the gateway's model cannot carry (for `x-svc-dropped-fields`). */
  readonly dropped?: ReadonlyArray<string> | undefined
}
