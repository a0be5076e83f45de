/**
 * The gateway's whole answer as an Anthropic `message`: content blocks in the Messages API's order
 * (thinking, text, tool uses), the stop reason (the Anthropic upstream's own when it was one, else
 * from the finish reason), and usage in Anthropic's terms, whose `input_tokens` leaves out the prompt
 * tokens read from or written to the cache that chat completions counts in. The gateway's own
 * `svc_tool_runs` and `svc_pending_id` ride along as top-level fields. The stream (`MessagesStream.ts`)
 * shares the usage, stop reason and gateway fields from here.
 */
import type { Identity } from "../../core/Dialect.ts"
import type { Outcome, WholeAnswer } from "../../core/Outcome.ts"
import type { Completion, NativeDetail, Usage } from "../../kernel/Canonical.ts"
import { isRecord } from "../../kernel/Json.ts"
import { toolUseId } from "./MessagesIds.ts"

type Json = Record<string, unknown>

export interface AnthropicUsage {
  readonly input_tokens: number
  readonly output_tokens: number
  readonly cache_read_input_tokens: number
  readonly cache_creation_input_tokens: number
}

/** The gateway's usage in Anthropic's terms: the cached parts of the prompt apart from `input_tokens`. */
export const anthropicUsage = (usage: Usage): AnthropicUsage => ({
  input_tokens: Math.max(0, usage.promptTokens - usage.cachedTokens - (usage.cacheWriteTokens ?? 0)),
  output_tokens: usage.completionTokens,
  cache_read_input_tokens: usage.cachedTokens,
  cache_creation_input_tokens: usage.cacheWriteTokens ?? 0
})

const STOP_REASONS: Readonly<Record<string, string>> = {
  stop: "end_turn",
  length: "max_tokens",
  tool_calls: "tool_use",
  function_call: "tool_use",
  content_filter: "refusal"
}

export interface Stop {
  readonly stop_reason: unknown
  readonly stop_sequence: unknown
}

/** The stop reason and sequence: the Anthropic upstream's as it said them, else from the finish reason. */
export const stopOf = (finishReason: string | null | undefined, native: NativeDetail | undefined): Stop =>
  native?.format === "anthropic"
    ? { stop_reason: native["stop_reason"] ?? null, stop_sequence: native["stop_sequence"] ?? null }
    : { stop_reason: STOP_REASONS[finishReason ?? "stop"] ?? "end_turn", stop_sequence: null }

/** The gateway's own fields, when there is anything to say. */
export const gatewayFields = (outcome: Pick<Outcome, "toolRuns" | "svcPendingId">): Json => ({
  ...(outcome.toolRuns.length > 0 ? { svc_tool_runs: outcome.toolRuns } : {}),
  ...(outcome.svcPendingId === undefined ? {} : { svc_pending_id: outcome.svcPendingId })
})

/** A tool call's arguments as `input`: always an object, `{}` for arguments that are not one. */
const inputOf = (args: string): Json => {
  try {
    const value: unknown = JSON.parse(args)
    return isRecord(value) ? value : {}
  } catch {
    return {}
  }
}

/** A completion's first choice as content blocks. */
export const contentBlocks = (completion: Completion): Array<Json> => {
  const message = completion.choices[0]?.message
  if (message === undefined) return []
  const blocks: Array<Json> = []
  const thinking = message["thinking_blocks"]
  if (Array.isArray(thinking) && thinking.length > 0) {
    for (const block of thinking) {
      if (isRecord(block) && (block["type"] === "thinking" || block["type"] === "redacted_thinking")) blocks.push(block)
    }
  } else if (typeof message["reasoning_content"] === "string" && message["reasoning_content"] !== "") {
    // thinking from a model that signs nothing: an empty signature, the field Anthropic's SDKs expect
    blocks.push({ type: "thinking", thinking: message["reasoning_content"], signature: "" })
  }
  if (typeof message.content === "string" && message.content !== "") {
    blocks.push({ type: "text", text: message.content })
  }
  for (const call of message.tool_calls ?? []) {
    blocks.push({
      type: "tool_use",
      id: toolUseId(call.id),
      name: call.function.name,
      input: inputOf(call.function.arguments)
    })
  }
  return blocks
}

export const encodeMessage = (identity: Identity, answer: WholeAnswer): Json => ({
  id: identity.id,
  type: "message",
  role: "assistant",
  model: identity.model,
  content: contentBlocks(answer.completion),
  ...stopOf(answer.completion.choices[0]?.finish_reason, answer.completion.native),
  usage: anthropicUsage(answer.usage),
  ...gatewayFields(answer)
})
