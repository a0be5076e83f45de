/**
 * Pure pieces of the shared-tool loop: the tool list the upstream sees, telling shared calls from the
 * client's, the messages a finished tool turn adds, and putting a pending turn back into a conversation.
 */
import type { AssistantMessage, ChatMessage, ToolCall, ToolDefinition } from "../kernel/Canonical.ts"
import type { PendingState } from "../tools/PendingCalls.ts"
import type { SvcTool } from "../tools/SvcTool.ts"
import type { ToolRunResult } from "../tools/ToolRunner.ts"

export const SHARED_PREFIX = "svc_"

/** Injected tools as functions named by their ids, after the client's own. */
export const upstreamTools = (
  clientTools: ReadonlyArray<ToolDefinition> | undefined,
  shared: ReadonlyArray<SvcTool>
): ReadonlyArray<ToolDefinition> | undefined => {
  if (shared.length === 0) return clientTools
  return [
    ...(clientTools ?? []),
    ...shared.map((tool) => ({
      type: "function" as const,
      function: { name: tool.id, description: tool.description, parameters: tool.jsonSchema }
    }))
  ]
}

/**
 * Every `svc_` call is the gateway's, injected or not: a call to a shared tool that was not injected
 * must never reach the client as if it were its own; the runner answers it with an error instead.
 */
export const isSharedCall = (name: string | undefined) => name !== undefined && name.startsWith(SHARED_PREFIX)

export const partitionCalls = (calls: ReadonlyArray<ToolCall>) => ({
  shared: calls.filter((call) => isSharedCall(call.function.name)),
  client: calls.filter((call) => !isSharedCall(call.function.name))
})

export const toolResultMessages = (results: ReadonlyArray<ToolRunResult>): ReadonlyArray<ChatMessage> =>
  results.map((result) => ({ role: "tool", tool_call_id: result.toolCallId, content: result.content }))

/**
 * The assistant turn that asked for tools, as the next round's history needs it: its text, its calls,
 * and its thinking (Anthropic refuses a tool result whose turn lost the thinking before it).
 */
export const assistantTurn = (message: AssistantMessage): ChatMessage => ({
  role: "assistant",
  content: message.content,
  ...(message.tool_calls === undefined ? {} : { tool_calls: message.tool_calls }),
  ...(message["thinking_blocks"] === undefined ? {} : { thinking_blocks: message["thinking_blocks"] }),
  ...(message["reasoning_content"] === undefined ? {} : { reasoning_content: message["reasoning_content"] })
})

/** `items` in the order of `order`'s ids (by `idOf`); items whose id it lacks keep their order, after. */
const inOrder = <A>(
  items: ReadonlyArray<A>,
  order: ReadonlyArray<string> | undefined,
  idOf: (item: A) => string | undefined
): ReadonlyArray<A> => {
  if (order === undefined) return items
  const rank = new Map(order.map((id, i) => [id, i]))
  const at = (item: A) => rank.get(idOf(item) ?? "") ?? order.length
  return items.map((item, i) => ({ item, i })).sort((a, b) => at(a.item) - at(b.item) || a.i - b.i).map(({ item }) =>
    item
  )
}

/**
 * The conversation with a pending turn restored: the shared-only rounds before it go back in front of
 * the assistant message that holds the client's calls, the stored shared calls into that message, and
 * their results among that message's tool results. The turn is the one the model wrote: its content as
 * it was and its calls (and so their results) in the model's order, when the record kept them.
 * Undefined when no assistant message holds those calls. Restoring twice changes nothing.
 */
export const restorePending = (
  messages: ReadonlyArray<ChatMessage>,
  pending: PendingState
): ReadonlyArray<ChatMessage> | undefined => {
  const wanted = new Set(pending.clientToolCallIds)
  let at = -1
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!
    if (message.role === "assistant" && (message.tool_calls ?? []).some((call) => wanted.has(call.id))) {
      at = i
      break
    }
  }
  if (at < 0) return undefined
  const assistant = messages[at]!
  const present = new Set((assistant.tool_calls ?? []).map((call) => call.id))
  const missingCalls = pending.sharedToolCalls.filter((call) => !present.has(call.id))
  let end = at + 1
  while (end < messages.length && messages[end]!.role === "tool") end++
  const answered = new Set(messages.slice(at + 1, end).map((message) => message.tool_call_id))
  const missingResults: ReadonlyArray<ChatMessage> = pending.sharedResults
    .filter((result) => !answered.has(result.tool_call_id))
    .map((result) => ({ role: "tool", tool_call_id: result.tool_call_id, content: result.content }))
  // the earlier shared rounds go back before this turn, unless the conversation has them already
  const known = new Set(messages.flatMap((message) => (message.tool_calls ?? []).map((call) => call.id)))
  const priorMissing = pending.priorTurns.every((message) =>
    (message.tool_calls ?? []).every((call) => !known.has(call.id))
  )
  const order = pending.turn?.callOrder
  const calls = inOrder([...(assistant.tool_calls ?? []), ...missingCalls], order, (call) => call.id)
  const results = inOrder([...messages.slice(at + 1, end), ...missingResults], order, (message) => message.tool_call_id)
  return [
    ...messages.slice(0, at),
    ...(priorMissing ? pending.priorTurns : []),
    { ...assistant, ...(pending.turn === undefined ? {} : { content: pending.turn.content }), tool_calls: calls },
    ...results,
    ...messages.slice(end)
  ]
}
