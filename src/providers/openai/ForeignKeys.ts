/**
 * Keys that another format's client put into the gateway's model and that chat-completions upstreams do
 * not take: Anthropic's `cache_control` breakpoints (on content parts and tools), thinking blocks and
 * their text on assistant turns, `is_error` on tool results. OpenAI refuses unknown keys in messages, so
 * a call decoded from another format goes out without them, and the answer names them in
 * `x-svc-dropped-fields`. A chat-completions client's own keys are never touched (OpenRouter, for one,
 * takes `cache_control`).
 */
import type { ChatMessage, ToolDefinition } from "../../kernel/Canonical.ts"

const MESSAGE_KEYS = ["thinking_blocks", "reasoning_content", "is_error"] as const

export interface Stripped {
  readonly messages: ReadonlyArray<ChatMessage>
  readonly tools: ReadonlyArray<ToolDefinition> | undefined
  /** Each kind of key left out once, as a path pattern: `messages[].content[].cache_control`. */
  readonly dropped: ReadonlyArray<string>
}

const without = <T extends object>(value: T, key: string): T => {
  const { [key]: _, ...rest } = value as Record<string, unknown>
  return rest as T
}

export const stripForeignKeys = (
  messages: ReadonlyArray<ChatMessage>,
  tools: ReadonlyArray<ToolDefinition> | undefined
): Stripped => {
  const dropped = new Set<string>()
  const strippedMessages = messages.map((message) => {
    let out = message
    for (const key of MESSAGE_KEYS) {
      if (key in out) {
        out = without(out, key)
        dropped.add(`messages[].${key}`)
      }
    }
    const content = out.content
    if (Array.isArray(content) && content.some((part) => "cache_control" in part)) {
      dropped.add("messages[].content[].cache_control")
      out = { ...out, content: content.map((part) => without(part, "cache_control")) }
    }
    return out
  })
  const strippedTools = tools?.map((tool) => {
    if (!("cache_control" in tool)) return tool
    dropped.add("tools[].cache_control")
    return without(tool, "cache_control")
  })
  return { messages: strippedMessages, tools: strippedTools, dropped: [...dropped] }
}
