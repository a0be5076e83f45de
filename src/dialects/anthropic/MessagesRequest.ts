/**
 * Decodes an Anthropic Messages request (`POST /v1/messages`) into the gateway's `ChatCall`, by the
 * mapping of docs/architecture.md ("The gateway's own model"): the conversation (`MessagesTurns.ts`), the
 * tools and tool choice (`MessagesTools.ts`), and the top-level fields that have chat-completions names
 * (`max_tokens`, `stop_sequences` as `stop`, `temperature`, `top_p`, `metadata.user_id` as `user`). Fields
 * only Anthropic takes (`thinking`, `context_management`, `output_config`, `top_k`, ... and any key unknown
 * here) are not passed through, which an OpenAI upstream would refuse: they are named in `dropped`, and
 * reach an Anthropic upstream in `native`, the request as sent. A bad field is a 400 naming it.
 */
import { Effect, Schema } from "effect"
import type { Headers } from "../../core/Dialect.ts"
import type { ChatCall, NativeRequest } from "../../kernel/ChatCall.ts"
import { decodeInput } from "../../kernel/DecodeInput.ts"
import { GATEWAY_FIELDS, withoutGatewayFields } from "../../kernel/GatewayFields.ts"
import { RequestError } from "../../kernel/RequestError.ts"
import { decodeToolChoice, decodeTools } from "./MessagesTools.ts"
import { decodeTurns, type Turns } from "./MessagesTurns.ts"

const Extra = [Schema.Record(Schema.String, Schema.Unknown)] as const
/** A struct that keeps the keys it does not name. */
const Open = <const F extends Schema.Struct.Fields>(fields: F) => Schema.StructWithRest(Schema.Struct(fields), Extra)
/** Absent and `null` alike mean not set. */
const Optional = <S extends Schema.Top>(schema: S) => Schema.optionalKey(Schema.NullOr(schema))

// every block needs a type; which types the mapping knows, and what it reads of them, is MessagesTurns'
const Block = Open({ type: Schema.String })
const Content = Schema.Union([Schema.String, Schema.Array(Block)])

export const MessagesRequestBody = Schema.Struct({
  // as sent: a bare `claude-...` name is routed by the route layer (`ChatCall.bareModelAuthor`)
  model: Schema.NonEmptyString,
  // required by the Messages API, unlike chat completions' `max_tokens`
  max_tokens: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1, { message: "Expected an integer >= 1" })),
  // Claude Code sends `system` turns among the messages (its environment), which the API takes
  messages: Schema.Array(Open({ role: Schema.Literals(["user", "assistant", "system"]), content: Content }))
    .check(Schema.isMinLength(1, { message: "Expected at least 1 message" })),
  system: Optional(Content),
  tools: Optional(Schema.Array(Open({ name: Schema.NonEmptyString, type: Schema.optionalKey(Schema.String) }))),
  tool_choice: Optional(Open({
    type: Schema.Literals(["auto", "any", "tool", "none"]),
    name: Schema.optionalKey(Schema.NonEmptyString),
    disable_parallel_tool_use: Schema.optionalKey(Schema.Boolean)
  })),
  stop_sequences: Optional(Schema.Array(Schema.String)),
  temperature: Optional(Schema.Number),
  top_p: Optional(Schema.Number),
  stream: Optional(Schema.Boolean),
  metadata: Optional(Open({ user_id: Optional(Schema.String) })),
  svc_tool_ids: Optional(Schema.Array(Schema.String)),
  svc_pending_id: Optional(Schema.String),
  tags: Optional(Schema.Array(Schema.String))
})

/** Fields the gateway's model carries (mapped below); any other key is Anthropic's alone. */
const MAPPED: ReadonlySet<string> = new Set([
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

/** Headers an Anthropic upstream gets as the client sent them. */
const FORWARDED_HEADERS = ["anthropic-version", "anthropic-beta"] as const

const nativeRequest = (raw: Readonly<Record<string, unknown>>, headers: Headers): NativeRequest => {
  const forwarded: Record<string, string> = {}
  for (const name of FORWARDED_HEADERS) {
    const value = headers[name]
    if (value !== undefined) forwarded[name] = value
  }
  return { format: "anthropic", body: withoutGatewayFields(raw), headers: forwarded }
}

const decodeBody = decodeInput(MessagesRequestBody)

export const parseMessagesCall = Effect.fnUntraced(function*(json: unknown, headers: Headers) {
  const body = yield* decodeBody(json)
  // decodeInput took only an object
  const raw = json as Readonly<Record<string, unknown>>
  const out: Turns = { messages: [], dropped: [] }
  for (const key in raw) if (!MAPPED.has(key) && !GATEWAY_FIELDS.has(key)) out.dropped.push(key)

  const badTurn = decodeTurns(body.system ?? undefined, body.messages, out)
  if (badTurn !== undefined) return yield* badTurn
  const tools = decodeTools(body.tools ?? [], out.dropped)
  if (tools instanceof RequestError) return yield* tools
  const toolChoice = decodeToolChoice(body.tool_choice ?? undefined)
  if (toolChoice instanceof RequestError) return yield* toolChoice

  const passthrough: Record<string, unknown> = {}
  const pass = (key: string, value: unknown) => {
    if (value !== undefined && value !== null) passthrough[key] = value
  }
  pass("stop", body.stop_sequences)
  pass("temperature", body.temperature)
  pass("top_p", body.top_p)
  pass("user", body.metadata?.user_id)
  if (body.tool_choice?.disable_parallel_tool_use === true) passthrough["parallel_tool_calls"] = false

  const call: ChatCall = {
    model: body.model,
    bareModelAuthor: "anthropic",
    messages: out.messages,
    maxTokens: body.max_tokens,
    stream: body.stream ?? false,
    // the Messages API always reports usage, in `message_start` and `message_delta`
    includeUsage: true,
    streamOptions: {},
    tools: tools.length > 0 ? tools : undefined,
    toolChoice,
    svcToolIds: body.svc_tool_ids ?? [],
    svcPendingId: body.svc_pending_id ?? undefined,
    tags: body.tags ?? [],
    passthrough,
    native: nativeRequest(raw, headers),
    dropped: out.dropped
  }
  return call
})
