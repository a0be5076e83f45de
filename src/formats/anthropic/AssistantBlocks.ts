/**
 * An assistant turn's Anthropic content blocks as the gateway's assistant message: text joined into
 * `content` (null when the turn only thinks or calls tools), `tool_use` blocks as tool calls, thinking
 * and redacted thinking kept whole in `thinking_blocks` (their signatures must go back to Anthropic)
 * with the thinking text in `reasoning_content`. Both directions need it: an upstream's answer (the
 * provider) and a client's earlier turns (the dialect), so it lives under `formats/`, which each of them
 * may import and which imports only the kernel.
 */
import type { AssistantMessage, ToolCall } from "../../kernel/Canonical.ts"
import { isRecord } from "../../kernel/Json.ts"

type Json = Readonly<Record<string, unknown>>

/** The message, and the positions of blocks it has no place for (say, a server tool's result). */
export const assistantFromBlocks = (
  blocks: ReadonlyArray<unknown>
): {
  readonly message: AssistantMessage
  readonly unknown: ReadonlyArray<{ readonly index: number; readonly type: string }>
} => {
  let text = ""
  let reasoning = ""
  const thinking: Array<Json> = []
  const calls: Array<ToolCall> = []
  const unknown: Array<{ index: number; type: string }> = []
  blocks.forEach((block, index) => {
    if (!isRecord(block)) return
    switch (block["type"]) {
      case "text":
        text += typeof block["text"] === "string" ? block["text"] : ""
        return
      case "tool_use":
        calls.push({
          id: String(block["id"] ?? ""),
          type: "function",
          function: { name: String(block["name"] ?? ""), arguments: JSON.stringify(block["input"] ?? {}) }
        })
        return
      case "thinking":
        reasoning += typeof block["thinking"] === "string" ? block["thinking"] : ""
        thinking.push(block)
        return
      case "redacted_thinking":
        thinking.push(block)
        return
      default:
        unknown.push({ index, type: String(block["type"]) })
    }
  })
  return {
    message: {
      role: "assistant",
      content: text === "" && (calls.length > 0 || thinking.length > 0) ? null : text,
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
      ...(thinking.length > 0 ? { reasoning_content: reasoning, thinking_blocks: thinking } : {})
    },
    unknown
  }
}
