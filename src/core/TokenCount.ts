/**
 * Counting tokens with a real tokenizer (o200k, `kernel/Tokenizer.ts`), for what an upstream cannot
 * count itself (`count_tokens` on a non-Anthropic target, an input estimate). The count of a
 * conversation follows OpenAI's documented accounting for chat messages: each message's text plus three
 * tokens, and three to prime the answer; tool definitions count as their JSON.
 */
import { Effect } from "effect"
import type { ChatMessage, ToolDefinition } from "../kernel/Canonical.ts"
import { loadTokenizer as load } from "../kernel/Tokenizer.ts"

export const countText = (text: string): Effect.Effect<number> =>
  Effect.promise(() => load().then((count) => count(text)))

/** The text a message puts before the model: its content, its tool calls' names and arguments. */
export const messageText = (message: ChatMessage): string => {
  let text = message.role
  const content = message.content
  if (typeof content === "string") text += `\n${content}`
  else if (Array.isArray(content)) {
    for (const part of content) if (typeof part["text"] === "string") text += `\n${part["text"]}`
  }
  for (const call of message.tool_calls ?? []) text += `\n${call.function.name}\n${call.function.arguments}`
  if (typeof message["reasoning_content"] === "string") text += `\n${message["reasoning_content"]}`
  return text
}

const PER_MESSAGE = 3
const PRIMING = 3

/** The input tokens of a conversation and its tools, as OpenAI counts chat messages. */
export const countConversation = (
  messages: ReadonlyArray<ChatMessage>,
  tools: ReadonlyArray<ToolDefinition> | undefined
): Effect.Effect<number> =>
  Effect.promise(() =>
    load().then((count) => {
      let total = PRIMING
      for (const message of messages) total += PER_MESSAGE + count(messageText(message))
      if (tools !== undefined && tools.length > 0) total += count(JSON.stringify(tools))
      return total
    })
  )
