/**
 * The Messages API request an Anthropic upstream gets for a call, as pure functions (the mapping is
 * /tmp/spec/anthropic-mapping.md's "Requests" direction). Two ways:
 * - the client wrote the Messages format itself (`call.native`): its request goes out as it came, with
 *   the model id, `stream`, the shared tools it lacks and the turns the tool loop appended, so nothing
 *   the client sent is lost (thinking signatures, cache breakpoints, server tools, context management);
 * - otherwise the call is written from the gateway's model: system and developer messages, wherever they
 *   are, gathered into `system`; tool results grouped into user turns of `tool_result` blocks;
 *   consecutive turns of one role merged (Anthropic wants them alternating); tool choice, stop sequences
 *   and `user` renamed. Passthrough fields with no Messages equivalent are left out and named by
 *   `droppedFields`.
 * `max_tokens` is required by Anthropic: a call without one (nor a passthrough `max_completion_tokens`)
 * asks for `DEFAULT_MAX_TOKENS` (4096).
 */
import type { ChatMessage, ContentPart, ToolDefinition } from "../../kernel/Canonical.ts"
import { forcedToolName } from "../../kernel/ChatCall.ts"
import { isRecord } from "../../kernel/Json.ts"
import type { ProviderCall } from "../Provider.ts"

/** What an answer may cost when the client set no limit: enough for a long answer, within every Claude model's. */
export const DEFAULT_MAX_TOKENS = 4096

/** The API version sent when neither the client nor the provider's configuration names one. */
export const ANTHROPIC_VERSION = "2023-06-01"

/** How `droppedFields` names content parts the Messages API has no block for (say, `input_audio`). */
export const DROPPED_PARTS = "messages[].content[] (parts other than text and images)"

type Json = Record<string, unknown>
type Block = Json
type Native = NonNullable<ProviderCall["native"]>

/** Passthrough fields this adapter maps (or, for `max_completion_tokens`, honours); any other is dropped. */
const MAPPED: ReadonlySet<string> = new Set([
  "stop",
  "temperature",
  "top_p",
  "user",
  "parallel_tool_calls",
  "max_completion_tokens"
])

/** The client's own Messages request, when there is one to start from. */
const nativeOf = (call: ProviderCall): Native | undefined =>
  call.native !== undefined && call.native.request.format === "anthropic" ? call.native : undefined

/** A tool call's arguments as the object `tool_use.input` must be; `{}` when they are not a JSON object. */
const parseInput = (args: string): Json => {
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

/**
 * One content part as a block; undefined for a part the Messages API has no block for here. System
 * prompts and assistant turns take text only; user turns and tool results take images too.
 */
const partBlock = (part: ContentPart, images: boolean): Block | undefined => {
  const cache = part["cache_control"] === undefined ? {} : { cache_control: part["cache_control"] }
  if (part.type === "text" && typeof part["text"] === "string") return { type: "text", text: part["text"], ...cache }
  if (images && part.type === "image_url") {
    const image = part["image_url"]
    const url = isRecord(image) && typeof image["url"] === "string"
      ? image["url"]
      : typeof image === "string"
      ? image
      : undefined
    return url === undefined ? undefined : { type: "image", source: imageSource(url), ...cache }
  }
  return undefined
}

/** Whether a message of this role takes image parts. */
const takesImages = (role: ChatMessage["role"]): boolean => role === "user" || role === "tool" || role === "function"

const contentBlocks = (content: ChatMessage["content"], images: boolean): Array<Block> => {
  if (content === undefined || content === null) return []
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }]
  const blocks: Array<Block> = []
  for (const part of content) {
    const block = partBlock(part, images)
    if (block !== undefined) blocks.push(block)
  }
  return blocks
}

const thinkingBlocks = (message: ChatMessage): Array<Block> => {
  const blocks = message["thinking_blocks"]
  return Array.isArray(blocks) ? blocks.filter((block: unknown): block is Block => isRecord(block)) : []
}

/** An assistant turn's blocks in the order Anthropic wants them: thinking, text, tool uses. */
const assistantBlocks = (message: ChatMessage): Array<Block> => [
  ...thinkingBlocks(message),
  ...contentBlocks(message.content, false),
  ...(message.tool_calls ?? []).map((call) => ({
    type: "tool_use",
    id: call.id,
    name: call.function.name,
    input: parseInput(call.function.arguments)
  }))
]

const toolResultBlock = (message: ChatMessage): Block => {
  const content = message.content
  return {
    type: "tool_result",
    tool_use_id: message.tool_call_id ?? "",
    content: typeof content === "string" ? content : contentBlocks(content, true),
    ...(message["is_error"] === true ? { is_error: true } : {})
  }
}

/** A turn's content written as simply as the Messages API allows: one plain text block is a string. */
const simplify = (blocks: ReadonlyArray<Block>): string | ReadonlyArray<Block> => {
  const only = blocks[0]
  return blocks.length === 1 && only !== undefined && only["type"] === "text" && Object.keys(only).length === 2
    ? String(only["text"])
    : blocks
}

/**
 * Conversation turns from the gateway's messages: tool messages become `tool_result` blocks of a user
 * turn, and consecutive turns of one role are merged. System messages are not turns and are left out.
 */
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
      case "user":
        push("user", contentBlocks(message.content, true))
    }
  }
  return turns.map((turn) => ({ role: turn.role, content: simplify(turn.blocks) }))
}

/**
 * The `system` field from every system and developer message: one string when they are all strings
 * (joined by a blank line), else text blocks that keep their `cache_control`.
 */
export const systemOf = (messages: ReadonlyArray<ChatMessage>): string | ReadonlyArray<Block> | undefined => {
  const system = messages.filter((m) => m.role === "system" || m.role === "developer")
  if (system.every((m) => typeof m.content === "string" || m.content === undefined || m.content === null)) {
    const texts = system.flatMap((m) => (typeof m.content === "string" && m.content !== "" ? [m.content] : []))
    return texts.length === 0 ? undefined : texts.join("\n\n")
  }
  const blocks = system.flatMap((m) => contentBlocks(m.content, false))
  return blocks.length === 0 ? undefined : blocks
}

/** A function tool as a custom tool; `cache_control` kept. */
export const toolOf = (tool: ToolDefinition): Json => ({
  name: tool.function.name,
  ...(tool.function.description === undefined ? {} : { description: tool.function.description }),
  input_schema: tool.function.parameters ?? { type: "object", properties: {} },
  ...(tool["cache_control"] === undefined ? {} : { cache_control: tool["cache_control"] })
})

/**
 * `none` -> `{type:"none"}`, `auto`, `required` -> `any`, a named function -> `tool`; passthrough
 * `parallel_tool_calls: false` -> `disable_parallel_tool_use` (on `auto` when the call named no choice).
 */
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
      return "disable_parallel_tool_use" in noParallel ? { type: "auto", ...noParallel } : undefined
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
  // tools stay even under `none`: Anthropic refuses earlier tool_use blocks without their tools
  if (call.tools !== undefined && call.tools.length > 0) {
    body["tools"] = call.tools.map(toolOf)
    const choice = toolChoiceOf(call)
    if (choice !== undefined) body["tool_choice"] = choice
  }
  const { stop, temperature, top_p: topP, user } = call.passthrough
  if (typeof stop === "string") body["stop_sequences"] = [stop]
  else if (Array.isArray(stop)) body["stop_sequences"] = stop
  if (temperature !== undefined && temperature !== null) body["temperature"] = temperature
  if (topP !== undefined && topP !== null) body["top_p"] = topP
  if (typeof user === "string") body["metadata"] = { user_id: user }
  body["stream"] = stream
  return body
}

/** A turn's content as blocks, to merge two turns of one role. */
const asBlocks = (content: unknown): Array<unknown> =>
  typeof content === "string" ? [{ type: "text", text: content }] : Array.isArray(content) ? content : []

/**
 * The client's own Messages request with what the gateway must change: the model id, `stream`, the
 * shared tools it lacks (appended), and the tool loop's turns (appended; the first merged into the
 * client's last turn only when both have the same role). A complete call leaves a body without `stream`
 * as it is (`false` is the API's default).
 */
const fromNative = (call: ProviderCall, native: Native, stream: boolean): Json => {
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
      if (isRecord(last) && last["role"] === turn["role"]) {
        messages[messages.length - 1] = {
          ...last,
          content: [...asBlocks(last["content"]), ...asBlocks(turn["content"])]
        }
      } else messages.push(turn)
    }
    body["messages"] = messages
  }
  return body
}

/** The request body for `call`; `stream` says whether it asks for a stream (`open`) or not (`complete`). */
export const requestBody = (call: ProviderCall, stream: boolean): Json => {
  const native = nativeOf(call)
  return native === undefined ? fromModel(call, stream) : fromNative(call, native, stream)
}

/**
 * The Messages API headers of a call: `anthropic-version` and `anthropic-beta` as the client sent them
 * (same format end to end), else as the provider's configuration sets them, else version `2023-06-01`
 * and no beta.
 */
export const forwardedHeaders = (
  call: ProviderCall,
  configured: Readonly<Record<string, string>> = {}
): Record<string, string> => {
  const client = nativeOf(call)?.request.headers ?? {}
  const beta = client["anthropic-beta"] ?? configured["anthropic-beta"]
  return {
    "anthropic-version": client["anthropic-version"] ?? configured["anthropic-version"] ?? ANTHROPIC_VERSION,
    ...(beta === undefined ? {} : { "anthropic-beta": beta })
  }
}

/**
 * What of a call written from the gateway's model an Anthropic upstream does not get: passthrough
 * fields with no Messages equivalent (`n`, `seed`, `response_format`, `stream_options`, ...) by their key
 * names, and content parts it has no block for. The client's own Messages request drops nothing.
 */
export const droppedFields = (call: ProviderCall): ReadonlyArray<string> => {
  if (nativeOf(call) !== undefined) return []
  const dropped = Object.keys(call.passthrough).filter((key) => !MAPPED.has(key))
  const lost = call.messages.some((message) =>
    Array.isArray(message.content) &&
    message.content.some((part) => partBlock(part, takesImages(message.role)) === undefined)
  )
  if (lost) dropped.push(DROPPED_PARTS)
  return dropped
}

/** The count_tokens request for `call`: the same body without what counting does not take. */
export const countTokensBody = (call: ProviderCall): Json => {
  const {
    max_tokens: _max,
    stream: _stream,
    temperature: _t,
    top_p: _p,
    top_k: _k,
    stop_sequences: _s,
    metadata: _m,
    ...rest
  } = requestBody(call, false)
  return rest
}
