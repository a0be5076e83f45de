/**
 * The conversation of a Messages request in the gateway's model: the system prompt first, then each
 * turn. A user turn's `tool_result` blocks become tool messages placed before the rest of that turn
 * (chat completions answers tool calls in messages of their own, right after the assistant's turn);
 * an assistant turn keeps its thinking blocks whole, signatures included, for an Anthropic target.
 * Blocks chat completions has no part for (documents, search results, server tools' results) are left
 * out and named (`messages[3].content[0].document`), never refused; a block that lacks what the mapping
 * reads from it is a 400 naming the field.
 */
import { assistantFromBlocks } from "../../formats/anthropic/AssistantBlocks.ts"
import type { ChatMessage, ContentPart } from "../../kernel/Canonical.ts"
import { isRecord } from "../../kernel/Json.ts"
import { RequestError } from "../../kernel/RequestError.ts"

/** A content block as the request's schema checked it: a `type`, and whatever else it carries. */
export interface Block {
  readonly type: string
  readonly [key: string]: unknown
}

export type Content = string | ReadonlyArray<Block>

export interface Turn {
  readonly role: "user" | "assistant" | "system"
  readonly content: Content
}

/** What decoding the conversation builds up: the messages, and what it had to leave out. */
export interface Turns {
  readonly messages: Array<ChatMessage>
  readonly dropped: Array<string>
}

const missing = (param: string): RequestError =>
  RequestError.invalidField(param, `Missing required parameter: '${param}'.`, "missing_required_parameter")

const invalid = (param: string, expected: string): RequestError =>
  RequestError.invalidField(param, `Invalid value for '${param}': Expected ${expected}.`, "invalid_value")

/** `block[key]` must be a string: undefined when it is, the 400 otherwise. */
const needString = (block: Block, key: string, at: string): RequestError | undefined => {
  const value = block[key]
  if (value === undefined) return missing(`${at}.${key}`)
  return typeof value === "string" ? undefined : invalid(`${at}.${key}`, "a string")
}

const cacheOf = (
  block: Block
) => (block["cache_control"] === undefined ? {} : { cache_control: block["cache_control"] })

/** A text block as a text part, its cache breakpoint kept. */
const textPart = (block: Block): ContentPart => ({ type: "text", text: block["text"], ...cacheOf(block) })

/**
 * An image block as an `image_url` part (`data:` URL for base64); undefined for a source chat
 * completions cannot address (a Files API `file_id`), which is dropped rather than refused.
 */
const imagePart = (block: Block, at: string): ContentPart | RequestError | undefined => {
  const source = block["source"]
  if (source === undefined) return missing(`${at}.source`)
  if (!isRecord(source)) return invalid(`${at}.source`, "an object")
  switch (source["type"]) {
    case "base64": {
      const { media_type, data } = source
      if (typeof media_type !== "string") return invalid(`${at}.source.media_type`, "a string")
      if (typeof data !== "string") return invalid(`${at}.source.data`, "a string")
      return { type: "image_url", image_url: { url: `data:${media_type};base64,${data}` }, ...cacheOf(block) }
    }
    case "url":
      if (typeof source["url"] !== "string") return invalid(`${at}.source.url`, "a string")
      return { type: "image_url", image_url: { url: source["url"] }, ...cacheOf(block) }
    default:
      return undefined
  }
}

/**
 * One text part without a cache breakpoint is exactly a string content, which every chat-completions
 * upstream takes; several parts stay parts, so blocks are not run together.
 */
const contentOf = (parts: ReadonlyArray<ContentPart>): string | ReadonlyArray<ContentPart> => {
  if (parts.length === 1) {
    const only = parts[0]!
    if (only.type === "text" && only["cache_control"] === undefined) return String(only["text"])
  }
  return parts
}

/** A tool result's content: a string, or its text blocks (a tool message holds text only). */
const toolResultContent = (
  content: unknown,
  at: string,
  out: Turns
): string | ReadonlyArray<ContentPart> | RequestError => {
  if (content === undefined) return ""
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return invalid(`${at}.content`, "a string or an array of content blocks")
  const parts: Array<ContentPart> = []
  for (const [k, item] of content.entries()) {
    const inner = `${at}.content[${k}]`
    if (!isRecord(item) || typeof item["type"] !== "string") return invalid(`${inner}.type`, "a string")
    const block = item as Block
    if (block.type !== "text") {
      out.dropped.push(`${inner}.${block.type}`)
      continue
    }
    const bad = needString(block, "text", inner)
    if (bad !== undefined) return bad
    parts.push(textPart(block))
  }
  return parts.length === 0 ? "" : contentOf(parts)
}

const userTurn = (content: Content, i: number, out: Turns): RequestError | undefined => {
  if (typeof content === "string") {
    out.messages.push({ role: "user", content })
    return undefined
  }
  const parts: Array<ContentPart> = []
  for (const [j, block] of content.entries()) {
    const at = `messages[${i}].content[${j}]`
    switch (block.type) {
      case "tool_result": {
        const bad = needString(block, "tool_use_id", at)
        if (bad !== undefined) return bad
        const result = toolResultContent(block["content"], at, out)
        if (result instanceof RequestError) return result
        // pushed now: the tool messages come before the user message made of the other blocks
        out.messages.push({
          role: "tool",
          tool_call_id: String(block["tool_use_id"]),
          content: result,
          ...(block["is_error"] === true ? { is_error: true } : {})
        })
        break
      }
      case "text": {
        const bad = needString(block, "text", at)
        if (bad !== undefined) return bad
        parts.push(textPart(block))
        break
      }
      case "image": {
        const part = imagePart(block, at)
        if (part instanceof RequestError) return part
        if (part === undefined) out.dropped.push(`${at}.image`)
        else parts.push(part)
        break
      }
      default:
        out.dropped.push(`${at}.${block.type}`)
    }
  }
  if (parts.length > 0) out.messages.push({ role: "user", content: contentOf(parts) })
  return undefined
}

const assistantTurn = (content: Content, i: number, out: Turns): RequestError | undefined => {
  if (typeof content === "string") {
    out.messages.push({ role: "assistant", content })
    return undefined
  }
  let breakpoints = false
  for (const [j, block] of content.entries()) {
    const at = `messages[${i}].content[${j}]`
    if (block.type === "text") {
      const bad = needString(block, "text", at)
      if (bad !== undefined) return bad
      breakpoints ||= block["cache_control"] !== undefined
    } else if (block.type === "tool_use") {
      const bad = needString(block, "id", at) ?? needString(block, "name", at)
      if (bad !== undefined) return bad
      if (block["input"] !== undefined && !isRecord(block["input"])) return invalid(`${at}.input`, "an object")
    }
  }
  const { message, unknown } = assistantFromBlocks(content)
  for (const block of unknown) out.dropped.push(`messages[${i}].content[${block.index}].${block.type}`)
  // a cache breakpoint on the assistant's text lives on a part: keep the text as parts then
  out.messages.push(
    breakpoints ? { ...message, content: content.filter((block) => block.type === "text").map(textPart) } : message
  )
  return undefined
}

/** A system prompt, or a system turn among the messages (Claude Code sends its environment as one). */
const systemTurn = (content: Content, at: string, out: Turns): RequestError | undefined => {
  if (typeof content === "string") {
    out.messages.push({ role: "system", content })
    return undefined
  }
  const parts: Array<ContentPart> = []
  for (const [j, block] of content.entries()) {
    if (block.type !== "text") {
      out.dropped.push(`${at}[${j}].${block.type}`)
      continue
    }
    const bad = needString(block, "text", `${at}[${j}]`)
    if (bad !== undefined) return bad
    parts.push(textPart(block))
  }
  // blocks stay blocks: their cache breakpoints are where Anthropic caches the prompt
  if (parts.length > 0) out.messages.push({ role: "system", content: parts })
  return undefined
}

/** The system prompt and the turns into `out`; the first invalid block's 400, if any. */
export const decodeTurns = (
  system: Content | undefined,
  turns: ReadonlyArray<Turn>,
  out: Turns
): RequestError | undefined => {
  if (system !== undefined) {
    const bad = systemTurn(system, "system", out)
    if (bad !== undefined) return bad
  }
  for (const [i, turn] of turns.entries()) {
    const bad = turn.role === "user"
      ? userTurn(turn.content, i, out)
      : turn.role === "assistant"
      ? assistantTurn(turn.content, i, out)
      : systemTurn(turn.content, `messages[${i}].content`, out)
    if (bad !== undefined) return bad
  }
  return undefined
}
