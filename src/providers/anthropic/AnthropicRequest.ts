/**
 * The Messages API request an Anthropic upstream gets for a call, as a pure function. Two ways:
 * - the client wrote the Messages format itself (`call.native`): its request goes out as it came, with
 *   the model id, the shared tools it lacks and the turns the tool loop appended, so nothing the client
 *   sent is lost (thinking signatures, cache breakpoints, server tools, context management);
 * - otherwise the call is written from the gateway's model: system messages gathered into `system`,
 *   tool results grouped into user turns of `tool_result` blocks, consecutive turns of one role merged
 *   (Anthropic wants them alternating), tool choice and stop sequences renamed.
 * `max_tokens` is required by Anthropic: a call without one asks for `DEFAULT_MAX_TOKENS`.
 */
import { forcedToolName } from "../../kernel/ChatCall.ts"
import type { ChatMessage, ContentPart, ToolDefinition } from "../../kernel/ChatWire.ts"
import type { ProviderCall } from "../Provider.ts"

/** What an answer may cost when the client set no limit: enough for a long answer, within every Claude model's. */
export const DEFAULT_MAX_TOKENS = 4096

export const ANTHROPIC_VERSION = "2023-06-01"

type Json = Record<string, unknown>
type Block = Json

const isRecord = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

/** Passthrough fields of a chat-completions call that the Messages API takes, by their Anthropic names. */
const RENAMED: Readonly<Record<string, string>> = { stop: "stop_sequences", temperature: "temperature", top_p: "top_p" }
/** Passthrough fields mapped by hand below, or that only say what chat completions would stream. */
const HANDLED = new Set(["stop", "temperature", "top_p", "user", "parallel_tool_calls", "max_completion_tokens", "stream_options"])

const parseInput = (args: string): unknown => {
  try {
    const value: unknown = JSON.parse(args)
    return isRecord(value) ? value : {}
  } catch {
    return {}
  }
}

/** A data URL's media type and base64 data, for an `image` block; other URLs are sent as URL sources. */
const imageSource = (url: string): Json => {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url)
  return match === null ? { type: "url", url } : { type: "base64", media_type: match[1], data: match[2] }
}

/** One content part as a block; undefined for parts the Messages API has no block for. */
const partBlock = (part: ContentPart): Block | undefined => {
  const cache = part["cache_control"] === undefined ? {} : { cache_control: part["cache_control"] }
  if (part.type === "text" && typeof part["text"] === "string") return { type: "text", text: part["text"], ...cache }
  if (part.type === "image_url") {
    const image = part["image_url"]
    const url = isRecord(image) && typeof image["url"] === "string" ? image["url"] : typeof image === "string" ? image : undefined
    return url === undefined ? undefined : { type: "image", source: imageSource(url), ...cache }
  }
  return undefined
}

const contentBlocks = (content: ChatMessage["content"]): Array<Block> => {
  if (content === undefined || content === null) return []
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }]
  const blocks: Array<Block> = []
  for (const part of content) {
    const block = partBlock(part)
    if (block !== undefined) blocks.push(block)
  }
  return blocks
}

const thinkingBlocks = (message: ChatMessage): Array<Block> => {
  const blocks = message["thinking_blocks"]
  return Array.isArray(blocks) ? blocks.filter((block: unknown): block is Block => isRecord(block)) : []
}

const assistantBlocks = (message: ChatMessage): Array<Block> => [
  ...thinkingBlocks(message),
  ...contentBlocks(message.content),
  ...(message.tool_calls ?? []).map((call) => ({
    type: "tool_use",
    id: call.id,
    name: call.function.name,
    input: parseInput(call.function.arguments)
  }))
]

const toolResultBlock = (message: ChatMessage): Block => {
  const content = message.content
  const result = typeof content === "string" ? content : contentBlocks(content)
  return {
    type: "tool_result",
    tool_use_id: message.tool_call_id ?? "",
    content: result,
    ...(message["is_error"] === true ? { is_error: true } : {})
  }
}

/** A system message's text blocks (a string becomes one block). */
const systemBlocks = (message: ChatMessage): Array<Block> => contentBlocks(message.content)

/** A turn's content written as simply as the Messages API allows: one plain text block is a string. */
const simplify = (blocks: ReadonlyArray<Block>): string | ReadonlyArray<Block> => {
  const only = blocks[0]
  return blocks.length === 1 && only !== undefined && only["type"] === "text" && Object.keys(only).length === 2
    ? String(only["text"])
    : blocks
}

/** Conversation turns from the gateway's messages; system messages are not turns and are left out. */
export const turnsOf = (messages: ReadonlyArray<ChatMessage>): Array<Json> => {
  const turns: Array<{ role: "user" | "assistant"; blocks: Array<Block> }> = []
  const push = (role: "user" | "assistant", blocks: ReadonlyArray<Block>) => {
    if (blocks.length === 0) return
    const last = turns.at(-1)
    if (last !== undefined && last.role === role) last.blocks.push(...blocks)
    else turns.push({ role, blocks: [...blocks] })
  }
  for (const message of messages) {
    switch (message.role) {
      case "system":
      case "developer":
        break
      case "assistant":
        push("assistant", assistantBlocks(message))
        break
      case "tool":
      case "function":
        push("user", [toolResultBlock(message)])
        break
      default:
        push("user", contentBlocks(message.content))
    }
  }
  return turns.map((turn) => ({ role: turn.role, content: simplify(turn.blocks) }))
}

export const systemOf = (messages: ReadonlyArray<ChatMessage>): string | ReadonlyArray<Block> | undefined => {
  const blocks = messages.filter((m) => m.role === "system" || m.role === "developer").flatMap(systemBlocks)
  if (blocks.length === 0) return undefined
  const plain = blocks.every((block) => Object.keys(block).length === 2)
  return plain ? blocks.map((block) => String(block["text"])).join("\n\n") : blocks
}

export const toolOf = (tool: ToolDefinition): Json => ({
  name: tool.function.name,
  ...(tool.function.description === undefined ? {} : { description: tool.function.description }),
  input_schema: tool.function.parameters ?? { type: "object", properties: {} },
  ...(tool["cache_control"] === undefined ? {} : { cache_control: tool["cache_control"] })
})

const toolChoiceOf = (call: ProviderCall): Json | undefined => {
  const noParallel = call.passthrough["parallel_tool_calls"] === false ? { disable_parallel_tool_use: true } : {}
  const named = forcedToolName(call.toolChoice)
  if (named !== undefined) return { type: "tool", name: named, ...noParallel }
  switch (call.toolChoice) {
    case "none":
      return { type: "none" }
    case "required":
      return { type: "any", ...noParallel }
    case "auto":
      return { type: "auto", ...noParallel }
    case undefined:
      return call.tools !== undefined && "disable_parallel_tool_use" in noParallel ? { type: "auto", ...noParallel } : undefined
  }
}

const maxTokensOf = (call: ProviderCall): number => {
  const fromPassthrough = call.passthrough["max_completion_tokens"]
  return call.maxTokens ?? (typeof fromPassthrough === "number" ? fromPassthrough : DEFAULT_MAX_TOKENS)
}

/** The body written from the gateway's model. */
const fromModel = (call: ProviderCall, stream: boolean): Json => {
  const body: Json = { model: call.modelId, max_tokens: maxTokensOf(call) }
  const system = systemOf(call.messages)
  if (system !== undefined) body["system"] = system
  body["messages"] = turnsOf(call.messages)
  if (call.tools !== undefined && call.tools.length > 0 && call.toolChoice !== "none") body["tools"] = call.tools.map(toolOf)
  const choice = toolChoiceOf(call)
  if (choice !== undefined && body["tools"] !== undefined) body["tool_choice"] = choice
  for (const [from, to] of Object.entries(RENAMED)) {
    const value = call.passthrough[from]
    if (value === undefined || value === null) continue
    body[to] = from === "stop" && typeof value === "string" ? [value] : value
  }
  const user = call.passthrough["user"]
  if (typeof user === "string") body["metadata"] = { user_id: user }
  body["stream"] = stream
  return body
}

/** The client's own Messages request, with what the gateway must change. */
const fromNative = (call: ProviderCall, native: NonNullable<ProviderCall["native"]>, stream: boolean): Json => {
  const body: Json = { ...native.request.body, model: call.modelId }
  if (stream) body["stream"] = true
  else if ("stream" in body) body["stream"] = false
  const own = Array.isArray(body["tools"]) ? body["tools"] : []
  const names = new Set(own.filter(isRecord).map((tool) => tool["name"]))
  const added = (call.tools ?? []).filter((tool) => !names.has(tool.function.name)).map(toolOf)
  if (added.length > 0) body["tools"] = [...own, ...added]
  const appended = call.messages.slice(native.clientTurns)
  if (appended.length > 0) {
    const messages = Array.isArray(body["messages"]) ? [...body["messages"]] : []
    for (const turn of turnsOf(appended)) {
      const last = messages.at(-1)
      // a tool loop's first turn is the assistant's, after the client's last (user) turn; merge only when needed
      if (isRecord(last) && last["role"] === turn["role"]) {
        const blocks = (content: unknown): Array<unknown> =>
          typeof content === "string" ? [{ type: "text", text: content }] : Array.isArray(content) ? content : []
        messages[messages.length - 1] = { ...last, content: [...blocks(last["content"]), ...blocks(turn["content"])] }
      } else messages.push(turn)
    }
    body["messages"] = messages
  }
  return body
}

/** The request body for `call`; `stream` says whether it asks for a stream. */
export const requestBody = (call: ProviderCall, stream: boolean): Json =>
  call.native !== undefined && call.native.request.format === "anthropic"
    ? fromNative(call, call.native, stream)
    : fromModel(call, stream)

/** The Messages API headers a call forwards: the client's version and betas in the same format. */
export const forwardedHeaders = (call: ProviderCall): Record<string, string> => {
  const headers = call.native?.request.format === "anthropic" ? call.native.request.headers : {}
  return {
    "anthropic-version": headers["anthropic-version"] ?? ANTHROPIC_VERSION,
    ...(headers["anthropic-beta"] === undefined ? {} : { "anthropic-beta": headers["anthropic-beta"] })
  }
}

/** Passthrough fields an Anthropic upstream cannot take, and the model's keys it drops across formats. */
export const droppedFields = (call: ProviderCall): ReadonlyArray<string> => {
  if (call.native?.request.format === "anthropic") return []
  const dropped: Array<string> = []
  for (const key of Object.keys(call.passthrough)) if (!HANDLED.has(key)) dropped.push(key)
  if (call.passthrough["n"] !== undefined && !dropped.includes("n")) dropped.push("n")
  for (const message of call.messages) {
    if (Array.isArray(message.content) && message.content.some((part) => partBlock(part) === undefined)) {
      dropped.push("messages[].content[] (parts other than text and images)")
      break
    }
  }
  return dropped
}

/** The count_tokens request for `call`: the same body without what counting does not take. */
export const countTokensBody = (call: ProviderCall): Json => {
  const { max_tokens: _max, stream: _stream, temperature: _t, top_p: _p, top_k: _k, stop_sequences: _s, metadata: _m, ...rest } =
    requestBody(call, false)
  return rest
}
