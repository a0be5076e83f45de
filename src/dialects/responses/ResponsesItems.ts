/**
 * A Responses request's `input` (and `instructions`) as the gateway's conversation. Items follow the
 * conversation as the Responses API lays it out: an assistant turn is a run of items (`reasoning`, an
 * assistant `message`, `function_call`s) that the chat-shaped model holds as one assistant message, with
 * its thinking in `thinking_blocks` (a reasoning item's summary, its `encrypted_content` as the signature);
 * a `function_call_output` is a `tool` message. Items the model cannot carry (`item_reference`,
 * `web_search_call`, whatever a client adds next) are named in `dropped` as `input[i].<type>`; they still
 * reach a Responses upstream, which gets the client's body as sent.
 */
import type { ChatMessage, ContentPart, ToolCall } from "../../kernel/Canonical.ts"
import { isRecord } from "../../kernel/Json.ts"
import { RequestError } from "../../kernel/RequestError.ts"

type Json = Readonly<Record<string, unknown>>

/** The assistant turn being gathered from consecutive items. */
interface AssistantTurn {
  text: string
  refusal: string | undefined
  readonly toolCalls: Array<ToolCall>
  readonly thinking: Array<Json>
}

const missing = (param: string): RequestError =>
  RequestError.invalidField(param, `Missing required parameter: '${param}'.`, "missing_required_parameter")

const invalid = (param: string, why: string): RequestError =>
  RequestError.invalidField(param, `Invalid value for '${param}': ${why}.`, "invalid_value")

const ROLES: ReadonlySet<string> = new Set(["user", "assistant", "system", "developer"])

/** A reasoning item's summary texts, one thinking text. */
const summaryText = (summary: unknown): string =>
  Array.isArray(summary)
    ? summary.flatMap((part) => (isRecord(part) && typeof part["text"] === "string" ? [part["text"]] : [])).join("\n\n")
    : ""

/** An input or output message part as a chat content part; undefined: the model has none for it. */
const partOf = (part: Json): ContentPart | undefined => {
  switch (part["type"]) {
    case "input_text":
    case "output_text":
    case "text":
      return typeof part["text"] === "string" ? { type: "text", text: part["text"] } : undefined
    case "input_image": {
      const url = part["image_url"]
      if (typeof url !== "string") return undefined // a Files API `file_id` is not addressable elsewhere
      const detail = part["detail"]
      return { type: "image_url", image_url: typeof detail === "string" ? { url, detail } : { url } }
    }
    default:
      return undefined
  }
}

/** A message item's content in the model: a string stays one; parts become chat parts. */
const messageContent = (
  content: unknown,
  at: string,
  dropped: Array<string>
): { readonly parts: Array<ContentPart>; readonly refusal: string | undefined } | RequestError => {
  if (typeof content === "string") return { parts: [{ type: "text", text: content }], refusal: undefined }
  if (!Array.isArray(content)) return invalid(`${at}.content`, "Expected a string or an array of content parts")
  const parts: Array<ContentPart> = []
  let refusal: string | undefined
  for (const [j, part] of content.entries()) {
    if (!isRecord(part) || typeof part["type"] !== "string") {
      return invalid(`${at}.content[${j}]`, "Expected a content part with a type")
    }
    if (part["type"] === "refusal" && typeof part["refusal"] === "string") {
      refusal = (refusal ?? "") + part["refusal"]
      continue
    }
    const mapped = partOf(part)
    if (mapped === undefined) dropped.push(`${at}.content[${j}].${part["type"]}`)
    else parts.push(mapped)
  }
  return { parts, refusal }
}

/** Text parts alone as one string (what an assistant's content or a tool's output is in the model). */
const textOf = (parts: ReadonlyArray<ContentPart>): string =>
  parts.map((part) => (typeof part["text"] === "string" ? part["text"] : "")).join("")

const onlyText = (parts: ReadonlyArray<ContentPart>): boolean => parts.every((part) => part.type === "text")

/**
 * The conversation of `instructions` and `input`; `dropped` collects what it leaves out. A malformed item
 * is a 400 naming it.
 */
export const decodeInputItems = (
  instructions: string | undefined,
  input: string | ReadonlyArray<unknown>,
  dropped: Array<string>
): Array<ChatMessage> | RequestError => {
  const messages: Array<ChatMessage> = []
  if (instructions !== undefined && instructions !== "") messages.push({ role: "system", content: instructions })
  if (typeof input === "string") {
    messages.push({ role: "user", content: input })
    return messages
  }
  let turn: AssistantTurn | undefined
  const assistant = (): AssistantTurn => (turn ??= { text: "", refusal: undefined, toolCalls: [], thinking: [] })
  const flush = (): void => {
    if (turn === undefined) return
    const message: Record<string, unknown> = {
      role: "assistant",
      content: turn.text === "" && turn.toolCalls.length > 0 ? null : turn.text
    }
    if (turn.refusal !== undefined) message["refusal"] = turn.refusal
    if (turn.toolCalls.length > 0) message["tool_calls"] = turn.toolCalls
    if (turn.thinking.length > 0) {
      message["thinking_blocks"] = turn.thinking
      message["reasoning_content"] = turn.thinking.map((block) => block["thinking"]).join("\n\n")
    }
    messages.push(message as ChatMessage)
    turn = undefined
  }

  for (const [i, item] of input.entries()) {
    const at = `input[${i}]`
    if (!isRecord(item)) return invalid(at, "Expected an input item (an object)")
    const type = item["type"] ?? (item["role"] !== undefined ? "message" : undefined)
    switch (type) {
      case "message": {
        const role = item["role"]
        if (role === undefined) return missing(`${at}.role`)
        if (typeof role !== "string" || !ROLES.has(role)) {
          return invalid(`${at}.role`, "Expected one of \"user\", \"assistant\", \"system\", \"developer\"")
        }
        if (item["content"] === undefined) return missing(`${at}.content`)
        const content = messageContent(item["content"], at, dropped)
        if (content instanceof RequestError) return content
        if (role === "assistant") {
          const current = assistant()
          current.text += textOf(content.parts)
          if (content.refusal !== undefined) current.refusal = (current.refusal ?? "") + content.refusal
          continue
        }
        flush()
        // a plain string stays a string: the shape most upstreams and tokenizers expect
        const single = content.parts.length === 1 && typeof item["content"] === "string"
        messages.push({
          role: role as "user" | "system" | "developer",
          content: single
            ? textOf(content.parts)
            : role !== "user" && onlyText(content.parts)
            ? textOf(content.parts)
            : content.parts
        })
        continue
      }
      case "function_call": {
        const callId = item["call_id"]
        const name = item["name"]
        const args = item["arguments"]
        if (typeof callId !== "string" || callId === "") {
          return callId === undefined
            ? missing(`${at}.call_id`)
            : invalid(`${at}.call_id`, "Expected a non-empty string")
        }
        if (typeof name !== "string" || name === "") {
          return name === undefined
            ? missing(`${at}.name`)
            : invalid(`${at}.name`, "Expected a non-empty string")
        }
        if (args !== undefined && typeof args !== "string") {
          return invalid(`${at}.arguments`, "Expected a string (the arguments as JSON)")
        }
        assistant().toolCalls.push({ id: callId, type: "function", function: { name, arguments: args ?? "{}" } })
        continue
      }
      case "function_call_output": {
        const callId = item["call_id"]
        const output = item["output"]
        if (typeof callId !== "string" || callId === "") {
          return callId === undefined
            ? missing(`${at}.call_id`)
            : invalid(`${at}.call_id`, "Expected a non-empty string")
        }
        if (output === undefined) return missing(`${at}.output`)
        const content = typeof output === "string" ? output : messageContent(output, at, dropped)
        if (content instanceof RequestError) return content
        flush()
        messages.push({
          role: "tool",
          tool_call_id: callId,
          content: typeof content === "string" ? content : textOf(content.parts)
        })
        continue
      }
      case "reasoning": {
        const encrypted = item["encrypted_content"]
        assistant().thinking.push({
          type: "thinking",
          thinking: summaryText(item["summary"]),
          signature: typeof encrypted === "string" ? encrypted : ""
        })
        continue
      }
      default:
        if (typeof type !== "string") return missing(`${at}.type`)
        dropped.push(`${at}.${type}`)
    }
  }
  flush()
  return messages
}
