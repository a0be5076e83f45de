/**
 * Decodes a chat-completion request body into a `ChatCall`: the fields the gateway acts on, typed and
 * checked, and every other field kept aside to pass to the provider untouched. Optional fields may be
 * `null`, which counts as absent (as OpenAI's API treats it). Each invalid field becomes a 400 that says
 * which field and why.
 */
import { Effect, Schema } from "effect"
import { ChatMessage, ToolDefinition } from "../../kernel/Canonical.ts"
import type { ChatCall } from "../../kernel/ChatCall.ts"
import { decodeInput } from "../../kernel/DecodeInput.ts"
import { GATEWAY_FIELDS } from "../../kernel/GatewayFields.ts"
import { isRecord } from "../../kernel/Json.ts"
import { RequestError } from "../../kernel/RequestError.ts"

const Optional = <S extends Schema.Top>(schema: S) => Schema.optionalKey(Schema.NullOr(schema))

const ModelAddress = Schema.String.check(
  Schema.isPattern(/^[^/\s]+\/\S+$/, { message: "Expected a model addressed as <author_id>/<model_id>" })
)

export const ChatRequestBody = Schema.Struct({
  model: ModelAddress,
  messages: Schema.Array(ChatMessage).check(Schema.isMinLength(1, { message: "Expected at least 1 message" })),
  max_tokens: Optional(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1, { message: "Expected an integer >= 1" }))),
  // checked like max_tokens, and passed to the upstream as it is (OpenAI's name for reasoning models)
  max_completion_tokens: Optional(
    Schema.Int.check(Schema.isGreaterThanOrEqualTo(1, { message: "Expected an integer >= 1" }))
  ),
  stream: Optional(Schema.Boolean),
  stream_options: Optional(Schema.StructWithRest(Schema.Struct({ include_usage: Optional(Schema.Boolean) }), [
    Schema.Record(Schema.String, Schema.Unknown)
  ])),
  tools: Optional(Schema.Array(ToolDefinition)),
  tool_choice: Optional(Schema.Union([
    Schema.Literals(["none", "auto", "required"]),
    Schema.Struct({ type: Schema.Literal("function"), function: Schema.Struct({ name: Schema.NonEmptyString }) })
  ])),
  svc_tool_ids: Optional(Schema.Array(Schema.String)),
  svc_pending_id: Optional(Schema.String),
  tags: Optional(Schema.Array(Schema.String))
})

/** Fields the gateway consumes; everything else passes through. */
const OWN_FIELDS = new Set([
  "model",
  "messages",
  "max_tokens",
  "stream",
  "stream_options",
  "tools",
  "tool_choice",
  ...GATEWAY_FIELDS
])

const decodeBody = decodeInput(ChatRequestBody)

/**
 * The first message without the content its role needs: every role but `assistant` needs content, and an
 * assistant message needs content unless it calls tools (OpenAI answers both with a 400).
 */
const missingContent = (messages: ReadonlyArray<ChatMessage>): RequestError | undefined => {
  for (const [i, message] of messages.entries()) {
    if (message.content !== undefined && message.content !== null) continue
    if (
      message.role === "assistant" && ((message.tool_calls?.length ?? 0) > 0 || message["function_call"] !== undefined)
    ) continue
    return RequestError.invalidField(
      `messages[${i}].content`,
      message.role === "assistant"
        ? `Missing required parameter: 'messages[${i}].content': an assistant message needs content unless it has tool_calls.`
        : `Missing required parameter: 'messages[${i}].content': a ${message.role} message needs content.`,
      "missing_required_parameter"
    )
  }
  return undefined
}

export const parseChatCall = Effect.fnUntraced(function*(json: unknown) {
  const body = yield* decodeBody(json)
  const noContent = missingContent(body.messages)
  if (noContent !== undefined) return yield* noContent
  const reserved = (body.tools ?? []).findIndex((tool) => tool.function.name.startsWith("svc_"))
  if (reserved >= 0) {
    return yield* RequestError.invalidField(
      `tools[${reserved}].function.name`,
      `Invalid value for 'tools[${reserved}].function.name': names starting with 'svc_' are reserved for the gateway's shared tools; list a shared tool in svc_tool_ids instead, or rename your tool.`,
      "reserved_tool_name"
    )
  }
  const passthrough: Record<string, unknown> = {}
  if (isRecord(json)) { for (const key in json) if (!OWN_FIELDS.has(key)) passthrough[key] = json[key] }
  const { include_usage, ...streamOptions } = body.stream_options ?? {}
  const call: ChatCall = {
    model: body.model,
    messages: body.messages,
    maxTokens: body.max_tokens ?? undefined,
    stream: body.stream ?? false,
    includeUsage: include_usage ?? false,
    streamOptions,
    tools: body.tools ?? undefined,
    toolChoice: body.tool_choice ?? undefined,
    svcToolIds: body.svc_tool_ids ?? [],
    svcPendingId: body.svc_pending_id ?? undefined,
    tags: body.tags ?? [],
    passthrough
  }
  return call
})
