/**
 * The gateway's answers in Anthropic's Messages shapes: a whole `message`, its usage (Anthropic's
 * `input_tokens` leaves out the cached prompt tokens that chat completions count), its stop reason
 * (the upstream's own when it was Anthropic), and content blocks in Anthropic's order: thinking, text,
 * tool uses. The gateway's `svc_tool_runs` and `svc_pending_id` ride along as top-level fields.
 */
import type { Identity } from "../../core/Dialect.ts"
import type { Answer, Outcome } from "../../core/Outcome.ts"
import type { Completion, NativeDetail, Usage } from "../../kernel/ChatWire.ts"

type Json = Record<string, unknown>

const isRecord = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

export const anthropicUsage = (usage: Usage) => ({
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

/** The stop reason and sequence: the Anthropic upstream's as it said them, else from the finish reason. */
export const stopOf = (finishReason: string | null | undefined, native: NativeDetail | undefined) =>
  native?.format === "anthropic"
    ? { stop_reason: native["stop_reason"] ?? null, stop_sequence: native["stop_sequence"] ?? null }
    : { stop_reason: STOP_REASONS[finishReason ?? "stop"] ?? "end_turn", stop_sequence: null }

/** The gateway's own fields, when there is anything to say. */
export const gatewayFields = (outcome: Pick<Outcome, "toolRuns" | "svcPendingId">): Json => ({
  ...(outcome.toolRuns.length > 0 ? { svc_tool_runs: outcome.toolRuns } : {}),
  ...(outcome.svcPendingId === undefined ? {} : { svc_pending_id: outcome.svcPendingId })
})

const inputOf = (args: string): unknown => {
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
    for (const block of thinking) if (isRecord(block)) blocks.push(block)
  } else if (typeof message["reasoning_content"] === "string" && message["reasoning_content"] !== "") {
    blocks.push({ type: "thinking", thinking: message["reasoning_content"], signature: "" })
  }
  if (typeof message.content === "string" && message.content !== "") blocks.push({ type: "text", text: message.content })
  for (const call of message.tool_calls ?? []) {
    blocks.push({ type: "tool_use", id: call.id, name: call.function.name, input: inputOf(call.function.arguments) })
  }
  return blocks
}

export const encodeMessage = (identity: Identity, answer: Answer): Json => {
  const choice = answer.completion.choices[0]
  return {
    id: identity.id,
    type: "message",
    role: "assistant",
    model: identity.model,
    content: contentBlocks(answer.completion),
    ...stopOf(choice?.finish_reason, answer.completion.native),
    usage: anthropicUsage(answer.usage),
    ...gatewayFields(answer)
  }
}
