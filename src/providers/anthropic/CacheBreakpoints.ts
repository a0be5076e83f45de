/**
 * Prompt-cache breakpoints for a Messages request the gateway wrote from another format (a chat
 * completions or Responses client: Codex, OpenCode, the SDKs), whose client could not set any. Without
 * them Anthropic caches nothing and every turn of an agent pays full input price. Where Anthropic's
 * guidance puts them: the end of the tools, the end of the system prompt, and the conversation's latest
 * turn, so the next turn reads everything before it from the cache (three of the four allowed).
 *
 * Only for a conversation worth caching (tools of its own, or an earlier answer: it will come back);
 * a request that already carries a `cache_control` anywhere keeps its own, untouched.
 */
import { isRecord } from "../../kernel/Json.ts"

type Json = Record<string, unknown>

const EPHEMERAL = { type: "ephemeral" } as const

/** Blocks Anthropic does not let carry a breakpoint. */
const UNMARKABLE = new Set(["thinking", "redacted_thinking"])

const hasCacheControl = (value: unknown): boolean => {
  if (Array.isArray(value)) return value.some(hasCacheControl)
  if (!isRecord(value)) return false
  if (value["cache_control"] !== undefined) return true
  return hasCacheControl(value["content"])
}

/** `content` (text or blocks) with its last markable block marked; as it was when none can be. */
const markLast = (content: unknown): unknown => {
  if (typeof content === "string") {
    return content === ""
      ? content
      : [{ type: "text", text: content, cache_control: EPHEMERAL }]
  }
  if (!Array.isArray(content)) return content
  for (let i = content.length - 1; i >= 0; i--) {
    const block = content[i]
    if (!isRecord(block) || UNMARKABLE.has(String(block["type"]))) continue
    if (block["type"] === "text" && block["text"] === "") continue
    const marked = [...content]
    marked[i] = { ...block, cache_control: EPHEMERAL }
    return marked
  }
  return content
}

export const withCacheBreakpoints = (body: Json): Json => {
  const tools = Array.isArray(body["tools"]) ? body["tools"] : []
  const messages = Array.isArray(body["messages"]) ? body["messages"] : []
  const worthCaching = tools.length > 0 ||
    messages.some((message) => isRecord(message) && message["role"] === "assistant")
  if (!worthCaching) return body
  if (hasCacheControl(tools) || hasCacheControl(body["system"]) || hasCacheControl(messages)) return body
  const out: Json = { ...body }
  const lastTool = tools.at(-1)
  if (isRecord(lastTool)) out["tools"] = [...tools.slice(0, -1), { ...lastTool, cache_control: EPHEMERAL }]
  if (body["system"] !== undefined) out["system"] = markLast(body["system"])
  const lastMessage = messages.at(-1)
  if (isRecord(lastMessage)) {
    out["messages"] = [...messages.slice(0, -1), { ...lastMessage, content: markLast(lastMessage["content"]) }]
  }
  return out
}
