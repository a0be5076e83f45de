/**
 * Decodes an Anthropic Messages request (`POST /v1/messages`) into the gateway's `ChatCall`: the system
 * prompt becomes a system message, content blocks become parts, `tool_use` blocks tool calls and
 * `tool_result` blocks tool messages, thinking blocks stay on their assistant turn, and tool choice and
 * stop sequences take their chat-completions names. What has no equivalent (extended thinking settings,
 * context management, server tools, documents) is dropped across formats and named; the request as
 * sent stays in `native`, so an Anthropic target gets all of it. A bad field is a 400 naming it.
 */
import { Effect, Schema } from "effect"
import type { ChatCall, ToolChoice } from "../../kernel/ChatCall.ts"
import type { ChatMessage, ContentPart, ToolDefinition } from "../../kernel/ChatWire.ts"
import { decodeInput } from "../../kernel/DecodeInput.ts"
import { RequestError } from "../../kernel/RequestError.ts"
import { assistantFromBlocks } from "../../providers/anthropic/AssistantBlocks.ts"

const Extra = [Schema.Record(Schema.String, Schema.Unknown)] as const
const Open = <const F extends Schema.Struct.Fields>(fields: F) => Schema.StructWithRest(Schema.Struct(fields), Extra)
const Optional = <S extends Schema.Top>(schema: S) => Schema.optionalKey(Schema.NullOr(schema))

const Block = Open({ type: Schema.String })
type Block = typeof Block.Type

const Content = Schema.Union([Schema.String, Schema.Array(Block)])

export const MessagesRequestBody = Schema.Struct({
  model: Schema.NonEmptyString,
  max_tokens: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1, { message: "Expected an integer >= 1" })),
  // Claude Code sends `system` turns among the messages (its environment), which the API takes
  messages: Schema.Array(Open({ role: Schema.Literals(["user", "assistant", "system"]), content: Content }))
    .check(Schema.isMinLength(1, { message: "Expected at least 1 message" })),
  system: Optional(Content),
  tools: Optional(Schema.Array(Open({ name: Schema.NonEmptyString }))),
  tool_choice: Optional(Open({ type: Schema.Literals(["auto", "any", "tool", "none"]), name: Schema.optionalKey(Schema.String) })),
  stop_sequences: Optional(Schema.Array(Schema.String)),
  temperature: Optional(Schema.Number),
  top_p: Optional(Schema.Number),
  stream: Optional(Schema.Boolean),
  metadata: Optional(Open({})),
  svc_tool_ids: Optional(Schema.Array(Schema.String)),
  svc_pending_id: Optional(Schema.String),
  tags: Optional(Schema.Array(Schema.String))
})

/** The gateway's own fields: acted on, and never sent to an upstream. */
const GATEWAY_FIELDS = new Set(["svc_tool_ids", "svc_pending_id", "tags"])
/** Fields with a chat-completions equivalent, mapped below. */
const MAPPED = new Set([
  "model",
  "max_tokens",
  "messages",
  "system",
  "tools",
  "tool_choice",
  "stop_sequences",
  "temperature",
  "top_p",
  "stream",
  "metadata"
])

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> => typeof u === "object" && u !== null && !Array.isArray(u)

const cacheOf = (block: Block) => (block["cache_control"] === undefined ? {} : { cache_control: block["cache_control"] })

/** An image block's source as an `image_url` URL (`data:` for base64). */
const imageUrl = (source: unknown): string | undefined => {
  if (!isRecord(source)) return undefined
  if (source["type"] === "base64") return `data:${String(source["media_type"])};base64,${String(source["data"])}`
  return source["type"] === "url" && typeof source["url"] === "string" ? source["url"] : undefined
}

/** A user block as a content part; undefined (and named in `dropped`) when chat completions has none. */
const partOf = (block: Block): ContentPart | undefined => {
  if (block.type === "text" && typeof block["text"] === "string") return { type: "text", text: block["text"], ...cacheOf(block) }
  if (block.type === "image") {
    const url = imageUrl(block["source"])
    if (url !== undefined) return { type: "image_url", image_url: { url }, ...cacheOf(block) }
  }
  return undefined
}

/** Text-only content without breakpoints is written as a string, as chat-completions clients do. */
const contentOf = (parts: ReadonlyArray<ContentPart>): string | ReadonlyArray<ContentPart> =>
  parts.every((part) => part.type === "text" && Object.keys(part).length === 2)
    ? parts.map((part) => String(part["text"])).join("")
    : parts

const toolResultContent = (content: unknown): string | ReadonlyArray<ContentPart> => {
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return ""
  const parts: Array<ContentPart> = []
  for (const block of content) if (isRecord(block) && typeof block["type"] === "string") {
    const part = partOf(block as Block)
    if (part !== undefined) parts.push(part)
  }
  return contentOf(parts)
}

interface Decoded {
  readonly messages: Array<ChatMessage>
  readonly dropped: Array<string>
}

const userTurn = (content: string | ReadonlyArray<Block>, at: number, out: Decoded): void => {
  if (typeof content === "string") {
    out.messages.push({ role: "user", content })
    return
  }
  const parts: Array<ContentPart> = []
  content.forEach((block, j) => {
    if (block.type === "tool_result") {
      out.messages.push({
        role: "tool",
        tool_call_id: String(block["tool_use_id"] ?? ""),
        content: toolResultContent(block["content"]),
        ...(block["is_error"] === true ? { is_error: true } : {})
      })
      return
    }
    const part = partOf(block)
    if (part === undefined) out.dropped.push(`messages[${at}].content[${j}].${block.type}`)
    else parts.push(part)
  })
  if (parts.length > 0) out.messages.push({ role: "user", content: contentOf(parts) })
}

const assistantTurn = (content: string | ReadonlyArray<Block>, at: number, out: Decoded): void => {
  if (typeof content === "string") {
    out.messages.push({ role: "assistant", content })
    return
  }
  const { message, unknown } = assistantFromBlocks(content)
  for (const block of unknown) out.dropped.push(`messages[${at}].content[${block.index}].${block.type}`)
  out.messages.push(message)
}

const systemMessage = (system: string | ReadonlyArray<Block>): ChatMessage => {
  if (typeof system === "string") return { role: "system", content: system }
  const parts = system.flatMap((block) => partOf(block) ?? [])
  return { role: "system", content: parts.some((part) => "cache_control" in part) ? parts : contentOf(parts) }
}

const toolChoiceOf = (choice: typeof MessagesRequestBody.Type["tool_choice"]): ToolChoice | undefined => {
  switch (choice?.type) {
    case undefined:
      return undefined
    case "auto":
      return "auto"
    case "any":
      return "required"
    case "none":
      return "none"
    case "tool":
      return { type: "function", function: { name: choice.name ?? "" } }
  }
}

const decodeBody = decodeInput(MessagesRequestBody)

export const parseMessagesCall = Effect.fnUntraced(function*(json: unknown, headers: Readonly<Record<string, string | undefined>>) {
  const body = yield* decodeBody(json)
  const raw = json as Readonly<Record<string, unknown>>
  const out: Decoded = { messages: [], dropped: [] }
  if (body.system !== undefined && body.system !== null) out.messages.push(systemMessage(body.system))
  body.messages.forEach((message, i) => {
    if (message.role === "user") userTurn(message.content, i, out)
    else if (message.role === "assistant") assistantTurn(message.content, i, out)
    else out.messages.push(systemMessage(message.content))
  })
  const tools: Array<ToolDefinition> = []
  for (const [i, tool] of (body.tools ?? []).entries()) {
    if (tool["type"] !== undefined && tool["type"] !== "custom") {
      out.dropped.push(`tools[${i}].${String(tool["type"])}`)
      continue
    }
    if (tool.name.startsWith("svc_")) {
      return yield* RequestError.invalidField(
        `tools[${i}].name`,
        `Invalid value for 'tools[${i}].name': names starting with 'svc_' are reserved for the gateway's shared tools; list a shared tool in svc_tool_ids instead, or rename your tool.`,
        "reserved_tool_name"
      )
    }
    tools.push({
      type: "function",
      function: {
        name: tool.name,
        ...(typeof tool["description"] === "string" ? { description: tool["description"] } : {}),
        ...(isRecord(tool["input_schema"]) ? { parameters: tool["input_schema"] } : {})
      },
      ...(tool["cache_control"] === undefined ? {} : { cache_control: tool["cache_control"] })
    })
  }
  const passthrough: Record<string, unknown> = {}
  if (body.stop_sequences !== undefined && body.stop_sequences !== null) passthrough["stop"] = body.stop_sequences
  if (body.temperature !== undefined && body.temperature !== null) passthrough["temperature"] = body.temperature
  if (body.top_p !== undefined && body.top_p !== null) passthrough["top_p"] = body.top_p
  const user = body.metadata?.["user_id"]
  if (typeof user === "string") passthrough["user"] = user
  if (body.tool_choice?.["disable_parallel_tool_use"] === true) passthrough["parallel_tool_calls"] = false
  // the client's request as an Anthropic upstream takes it: without the gateway's own fields
  const native: Record<string, unknown> = {}
  for (const key in raw) {
    if (GATEWAY_FIELDS.has(key)) continue
    native[key] = raw[key]
    if (!MAPPED.has(key)) out.dropped.push(key)
  }
  const version = headers["anthropic-version"]
  const beta = headers["anthropic-beta"]
  const call: ChatCall = {
    model: body.model,
    bareModelAuthor: "anthropic",
    messages: out.messages,
    maxTokens: body.max_tokens,
    stream: body.stream ?? false,
    includeUsage: true,
    streamOptions: {},
    tools: tools.length > 0 ? tools : undefined,
    toolChoice: toolChoiceOf(body.tool_choice ?? undefined),
    svcToolIds: body.svc_tool_ids ?? [],
    svcPendingId: body.svc_pending_id ?? undefined,
    tags: body.tags ?? [],
    passthrough,
    native: {
      format: "anthropic",
      body: native,
      headers: {
        ...(version === undefined ? {} : { "anthropic-version": version }),
        ...(beta === undefined ? {} : { "anthropic-beta": beta })
      }
    },
    dropped: out.dropped
  }
  return call
})
