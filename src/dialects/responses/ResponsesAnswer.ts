/**
 * The gateway's answer as a Responses API `response` object: output items in the API's order (reasoning
 * with its summary and, when the thinking was signed, its `encrypted_content`; the assistant `message`;
 * `function_call`s), `status` (`incomplete` with `incomplete_details.reason` when the answer was cut by
 * the token limit or a content filter), usage in the Responses names, and the request's settings echoed
 * as the API does (the SDKs read `tools`, `tool_choice`, `parallel_tool_calls` back). The gateway's own
 * `svc_tool_runs` and `svc_pending_id` ride along as top-level fields. The stream (`ResponsesStream.ts`)
 * builds the same object for its first and last events.
 */
import type { Identity } from "../../core/Dialect.ts"
import type { Outcome, WholeAnswer } from "../../core/Outcome.ts"
import { randomBase62 } from "../../Ids.ts"
import type { AssistantMessage, Usage } from "../../kernel/Canonical.ts"
import type { ChatCall } from "../../kernel/ChatCall.ts"
import { isRecord } from "../../kernel/Json.ts"

type Json = Record<string, unknown>

export const responseId = (): string => `resp_${randomBase62(24)}`
export const itemId = (prefix: "msg" | "fc" | "rs"): string => `${prefix}_${randomBase62(24)}`

export const responsesUsage = (usage: Usage): Json => ({
  input_tokens: usage.promptTokens,
  input_tokens_details: { cached_tokens: usage.cachedTokens },
  output_tokens: usage.completionTokens,
  output_tokens_details: { reasoning_tokens: usage.reasoningTokens },
  total_tokens: usage.totalTokens
})

/** `status` and `incomplete_details` for how the answer finished. */
export const statusOf = (
  finishReason: string | null | undefined
): { readonly status: string; readonly incomplete_details: Json | null } =>
  finishReason === "length"
    ? { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } }
    : finishReason === "content_filter"
    ? { status: "incomplete", incomplete_details: { reason: "content_filter" } }
    : { status: "completed", incomplete_details: null }

/** The gateway's own fields, when there is anything to say. */
export const gatewayFields = (outcome: Pick<Outcome, "toolRuns" | "svcPendingId">): Json => ({
  ...(outcome.toolRuns.length > 0 ? { svc_tool_runs: outcome.toolRuns } : {}),
  ...(outcome.svcPendingId === undefined ? {} : { svc_pending_id: outcome.svcPendingId })
})

const echo = (body: Readonly<Record<string, unknown>>, key: string, fallback: unknown): unknown => body[key] ?? fallback

/** A response's state: what `responseObject` puts around the request's echoed settings. */
export interface ResponseState {
  readonly status: string
  readonly incompleteDetails: Json | null
  readonly output: ReadonlyArray<Json>
  readonly usage: Usage | undefined
  /** The gateway's own fields (`svc_tool_runs`, `svc_pending_id`). */
  readonly extra?: Json | undefined
}

/** The response object around `output`: identity, status, usage and the request's settings echoed. */
export const responseObject = (identity: Identity, call: ChatCall, state: ResponseState): Json => {
  const { incompleteDetails, output, status, usage } = state
  const body = call.native?.body ?? {}
  return {
    id: identity.id,
    object: "response",
    created_at: identity.created,
    status,
    error: null,
    incomplete_details: incompleteDetails,
    instructions: echo(body, "instructions", null),
    max_output_tokens: echo(body, "max_output_tokens", null),
    model: identity.model,
    output,
    parallel_tool_calls: echo(body, "parallel_tool_calls", true),
    previous_response_id: null,
    reasoning: echo(body, "reasoning", { effort: null, summary: null }),
    store: echo(body, "store", false),
    temperature: echo(body, "temperature", 1),
    text: echo(body, "text", { format: { type: "text" } }),
    tool_choice: echo(body, "tool_choice", "auto"),
    tools: echo(body, "tools", []),
    top_p: echo(body, "top_p", 1),
    truncation: echo(body, "truncation", "disabled"),
    usage: usage === undefined ? null : responsesUsage(usage),
    user: echo(body, "user", null),
    metadata: echo(body, "metadata", {}),
    ...state.extra
  }
}

export const outputText = (text: string): Json => ({ type: "output_text", text, annotations: [] })

export const messageItem = (id: string, text: string, refusal: string | undefined): Json => ({
  id,
  type: "message",
  status: "completed",
  role: "assistant",
  content: [
    ...(text === "" && refusal !== undefined ? [] : [outputText(text)]),
    ...(refusal === undefined ? [] : [{ type: "refusal", refusal }])
  ]
})

export const reasoningItem = (id: string, text: string, encrypted: string | undefined): Json => ({
  id,
  type: "reasoning",
  summary: text === "" ? [] : [{ type: "summary_text", text }],
  ...(encrypted === undefined || encrypted === "" ? {} : { encrypted_content: encrypted })
})

export const functionCallItem = (item: {
  readonly id: string
  readonly callId: string
  readonly name: string
  readonly args: string
  readonly status?: string
}): Json => ({
  id: item.id,
  type: "function_call",
  status: item.status ?? "completed",
  arguments: item.args,
  call_id: item.callId,
  name: item.name
})

/** The assistant message of a completion as output items. */
export const outputItems = (message: AssistantMessage | undefined): Array<Json> => {
  if (message === undefined) return []
  const items: Array<Json> = []
  const thinking = message["thinking_blocks"]
  if (Array.isArray(thinking) && thinking.length > 0) {
    for (const block of thinking) {
      if (!isRecord(block) || block["type"] !== "thinking") continue // a redacted block has no summary to show
      const text = typeof block["thinking"] === "string" ? block["thinking"] : ""
      items.push(
        reasoningItem(itemId("rs"), text, typeof block["signature"] === "string" ? block["signature"] : undefined)
      )
    }
  } else if (typeof message["reasoning_content"] === "string" && message["reasoning_content"] !== "") {
    items.push(reasoningItem(itemId("rs"), message["reasoning_content"], undefined))
  }
  const text = typeof message.content === "string" ? message.content : ""
  const refusal = typeof message.refusal === "string" ? message.refusal : undefined
  if (text !== "" || refusal !== undefined) items.push(messageItem(itemId("msg"), text, refusal))
  for (const call of message.tool_calls ?? []) {
    items.push(functionCallItem({
      id: itemId("fc"),
      callId: call.id === "" ? `call_${randomBase62(24)}` : call.id,
      name: call.function.name,
      args: call.function.arguments
    }))
  }
  return items
}

export const encodeResponse = (identity: Identity, call: ChatCall, answer: WholeAnswer): Json => {
  const choice = answer.completion.choices[0]
  const { incomplete_details, status } = statusOf(choice?.finish_reason)
  return responseObject(identity, call, {
    status,
    incompleteDetails: incomplete_details,
    output: outputItems(choice?.message),
    usage: answer.usage,
    extra: gatewayFields(answer)
  })
}
