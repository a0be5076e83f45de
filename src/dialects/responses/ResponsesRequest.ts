/**
 * Decodes an OpenAI Responses request (`POST /v1/responses`: Codex, the `openai` SDK's
 * `responses.create`, the Vercel AI SDK's default OpenAI model) into the gateway's `ChatCall`: the
 * conversation (`ResponsesItems.ts`), function tools, tool choice, and the fields that have
 * chat-completions names (`max_output_tokens`, `temperature`, `top_p`, `reasoning.effort` as
 * `reasoning_effort`, `text.format` as `response_format`, `text.verbosity` as `verbosity`, ...). Tools of
 * other types (`web_search`, `namespace`, `custom`, ...), item types the model lacks and top-level fields
 * it has no name for (`include`, `client_metadata`, ...) are named in `dropped` and reach a Responses
 * upstream untouched in `native`, the body as sent.
 *
 * The gateway keeps no responses: `previous_response_id` and `conversation` (server-side state) are a 400
 * that says so. `store` is not refused, since SDKs send it by default: a Responses upstream gets it as
 * sent, other upstreams never store anything (a `store: true` is named as dropped there).
 */
import { Effect, Schema } from "effect"
import type { Headers } from "../../core/Dialect.ts"
import type { ToolDefinition } from "../../kernel/Canonical.ts"
import type { ChatCall, NativeRequest, ToolChoice } from "../../kernel/ChatCall.ts"
import { decodeInput } from "../../kernel/DecodeInput.ts"
import { GATEWAY_FIELDS, withoutGatewayFields } from "../../kernel/GatewayFields.ts"
import { isRecord } from "../../kernel/Json.ts"
import { RequestError } from "../../kernel/RequestError.ts"
import { decodeInputItems } from "./ResponsesItems.ts"

const Extra = [Schema.Record(Schema.String, Schema.Unknown)] as const
const Open = <const F extends Schema.Struct.Fields>(fields: F) => Schema.StructWithRest(Schema.Struct(fields), Extra)
/** Absent and `null` alike mean not set. */
const Optional = <S extends Schema.Top>(schema: S) => Schema.optionalKey(Schema.NullOr(schema))

export const ResponsesRequestBody = Schema.Struct({
  model: Schema.NonEmptyString,
  // what each item holds is ResponsesItems'; unknown item types pass to a Responses upstream
  input: Schema.Union([Schema.String, Schema.Array(Schema.Unknown)]),
  instructions: Optional(Schema.String),
  tools: Optional(Schema.Array(Open({ type: Schema.String }))),
  tool_choice: Optional(Schema.Union([Schema.String, Open({ type: Schema.String })])),
  parallel_tool_calls: Optional(Schema.Boolean),
  max_output_tokens: Optional(
    Schema.Int.check(Schema.isGreaterThanOrEqualTo(1, { message: "Expected an integer >= 1" }))
  ),
  temperature: Optional(Schema.Number),
  top_p: Optional(Schema.Number),
  reasoning: Optional(Open({ effort: Optional(Schema.String) })),
  text: Optional(Open({ format: Optional(Open({ type: Schema.String })), verbosity: Optional(Schema.String) })),
  stream: Optional(Schema.Boolean),
  store: Optional(Schema.Boolean),
  user: Optional(Schema.String),
  safety_identifier: Optional(Schema.String),
  prompt_cache_key: Optional(Schema.String),
  service_tier: Optional(Schema.String),
  svc_tool_ids: Optional(Schema.Array(Schema.String)),
  svc_pending_id: Optional(Schema.String),
  tags: Optional(Schema.Array(Schema.String))
})
export type ResponsesRequestBody = typeof ResponsesRequestBody.Type

/** Fields the gateway's model carries (below), or that mean nothing to it (`stream_options`). */
const MAPPED: ReadonlySet<string> = new Set([
  "model",
  "input",
  "instructions",
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "max_output_tokens",
  "temperature",
  "top_p",
  "reasoning",
  "text",
  "stream",
  "stream_options",
  "store",
  "user",
  "safety_identifier",
  "prompt_cache_key",
  "service_tier"
])

/** Server-side state the gateway does not keep. */
const STATEFUL = ["previous_response_id", "conversation"] as const

const reserved = (param: string): RequestError =>
  RequestError.invalidField(
    param,
    `Invalid value for '${param}': names starting with 'svc_' are reserved for the gateway's shared tools; list a shared tool in svc_tool_ids instead, or rename your tool.`,
    "reserved_tool_name"
  )

/** Function tools in the model; other tool types named in `dropped`. */
const decodeTools = (
  tools: ReadonlyArray<Readonly<Record<string, unknown>>>,
  dropped: Array<string>
): Array<ToolDefinition> | RequestError => {
  const functions: Array<ToolDefinition> = []
  for (const [i, tool] of tools.entries()) {
    if (tool["type"] !== "function") {
      dropped.push(`tools[${i}].${String(tool["type"])}`)
      continue
    }
    const { name, description, parameters, strict } = tool
    if (typeof name !== "string" || name === "") {
      return RequestError.invalidField(
        `tools[${i}].name`,
        `Missing required parameter: 'tools[${i}].name'.`,
        "missing_required_parameter"
      )
    }
    if (name.startsWith("svc_")) return reserved(`tools[${i}].name`)
    if (parameters !== undefined && parameters !== null && !isRecord(parameters)) {
      return RequestError.invalidField(
        `tools[${i}].parameters`,
        `Invalid value for 'tools[${i}].parameters': Expected a JSON Schema object.`,
        "invalid_value"
      )
    }
    functions.push({
      type: "function",
      function: {
        name,
        ...(typeof description === "string" ? { description } : {}),
        ...(isRecord(parameters) ? { parameters } : {}),
        ...(typeof strict === "boolean" ? { strict } : {})
      }
    })
  }
  return functions
}

const decodeToolChoice = (
  choice: ResponsesRequestBody["tool_choice"],
  dropped: Array<string>
): ToolChoice | undefined | RequestError => {
  if (choice === undefined || choice === null) return undefined
  if (typeof choice === "string") {
    if (choice === "none" || choice === "auto" || choice === "required") return choice
    return RequestError.invalidField(
      "tool_choice",
      `Invalid value for 'tool_choice': Expected "none", "auto", "required" or a tool.`,
      "invalid_value"
    )
  }
  if (choice.type === "function") {
    const name = choice["name"]
    if (typeof name !== "string" || name === "") {
      return RequestError.invalidField(
        "tool_choice.name",
        "Missing required parameter: 'tool_choice.name'.",
        "missing_required_parameter"
      )
    }
    return { type: "function", function: { name } }
  }
  // a hosted tool or an allowed-tools list: only a Responses upstream can take it
  dropped.push(`tool_choice.${choice.type}`)
  return undefined
}

/** `text.format` as chat completions' `response_format`. */
const responseFormat = (format: Readonly<Record<string, unknown>>): Record<string, unknown> | undefined => {
  if (format["type"] === "json_schema") {
    const { type: _type, ...schema } = format
    return { type: "json_schema", json_schema: schema }
  }
  return format["type"] === "json_object" ? { type: "json_object" } : undefined
}

const decodeBody = decodeInput(ResponsesRequestBody)

export const parseResponsesCall = Effect.fnUntraced(function*(json: unknown, _headers: Headers) {
  const body = yield* decodeBody(json)
  // decodeInput took only an object
  const raw = json as Readonly<Record<string, unknown>>
  for (const key of STATEFUL) {
    if (raw[key] !== undefined && raw[key] !== null) {
      return yield* RequestError.invalidField(
        key,
        `Invalid value for '${key}': the gateway keeps no responses; send the whole conversation as input (with store: false).`,
        "unsupported_parameter"
      )
    }
  }
  const dropped: Array<string> = []
  for (const key in raw) if (!MAPPED.has(key) && !GATEWAY_FIELDS.has(key)) dropped.push(key)
  if (body.store === true) dropped.push("store")

  const messages = decodeInputItems(body.instructions ?? undefined, body.input, dropped)
  if (messages instanceof RequestError) return yield* messages
  if (messages.length === 0) {
    return yield* RequestError.invalidField(
      "input",
      "Invalid value for 'input': Expected at least 1 item.",
      "invalid_value"
    )
  }
  const tools = decodeTools(body.tools ?? [], dropped)
  if (tools instanceof RequestError) return yield* tools
  const toolChoice = decodeToolChoice(body.tool_choice, dropped)
  if (toolChoice instanceof RequestError) return yield* toolChoice

  const passthrough: Record<string, unknown> = {}
  const pass = (key: string, value: unknown) => {
    if (value !== undefined && value !== null) passthrough[key] = value
  }
  pass("temperature", body.temperature)
  pass("top_p", body.top_p)
  pass("parallel_tool_calls", body.parallel_tool_calls)
  pass("user", body.user ?? body.safety_identifier)
  pass("prompt_cache_key", body.prompt_cache_key)
  pass("service_tier", body.service_tier)
  pass("reasoning_effort", body.reasoning?.effort)
  pass("verbosity", body.text?.verbosity)
  const format = body.text?.format
  if (format !== undefined && format !== null) pass("response_format", responseFormat(format))

  const native: NativeRequest = { format: "openai-responses", body: withoutGatewayFields(raw), headers: {} }
  const call: ChatCall = {
    model: body.model,
    messages,
    maxTokens: body.max_output_tokens ?? undefined,
    stream: body.stream ?? false,
    // the Responses API always reports usage, in `response.completed`
    includeUsage: true,
    streamOptions: {},
    tools: tools.length > 0 ? tools : undefined,
    toolChoice,
    svcToolIds: body.svc_tool_ids ?? [],
    svcPendingId: body.svc_pending_id ?? undefined,
    tags: body.tags ?? [],
    passthrough,
    native,
    dropped
  }
  return call
})
