/**
 * The body of a call to OpenAI's Responses API (`POST {base}/responses`). Two ways in:
 * - the client wrote the Responses format itself (`native`, Codex): its body goes as it came, every
 *   field, item and tool type included (encrypted reasoning, `include`, `prompt_cache_key`,
 *   `client_metadata`, `namespace` tools, whatever Codex adds next), but for the model id, `stream`, the
 *   shared tools the gateway adds and the tool loop's turns appended as items;
 * - any other format: written from the gateway's model (messages as input items, thinking blocks signed
 *   by this format as reasoning items, function tools, tool choice, `max_output_tokens`, sampling,
 *   `reasoning`, `text`), with `store: false` since the gateway keeps nothing; chat-only fields
 *   (`n`, `seed`, `stop`, penalties, `logprobs`, ...) are left out and named by `droppedFields`.
 */
import type { ChatMessage, ContentPart, ToolDefinition } from "../../kernel/Canonical.ts"
import type { NativeRequest } from "../../kernel/ChatCall.ts"
import { isRecord } from "../../kernel/Json.ts"
import type { WireFormat } from "../../kernel/WireFormat.ts"
import type { ProviderCall } from "../Provider.ts"

type Json = Record<string, unknown>

export const FORMAT: WireFormat = "openai-responses"

/** The client's own Responses request, when the call still starts from it. */
const nativeOf = (call: ProviderCall): { readonly request: NativeRequest; readonly clientTurns: number } | undefined =>
  call.native !== undefined && call.native.request.format === FORMAT ? call.native : undefined

const textOf = (content: ChatMessage["content"]): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.map((part) => (typeof part["text"] === "string" ? part["text"] : "")).join("")
    : ""

/** A chat content part as a Responses input part; undefined: Responses has none for it. */
const inputPart = (part: ContentPart): Json | undefined => {
  if (part.type === "text" && typeof part["text"] === "string") return { type: "input_text", text: part["text"] }
  if (part.type === "image_url") {
    const image = part["image_url"]
    const url = isRecord(image) ? image["url"] : image
    if (typeof url !== "string") return undefined
    const detail = isRecord(image) && typeof image["detail"] === "string" ? image["detail"] : "auto"
    return { type: "input_image", image_url: url, detail }
  }
  return undefined
}

/** A message's content as Responses input parts: a string is one `input_text` part. */
const inputContent = (content: ChatMessage["content"]): Array<Json> => {
  if (typeof content === "string") return [{ type: "input_text", text: content }]
  if (content === undefined || content === null) return []
  const parts: Array<Json> = []
  for (const part of content) {
    const mapped = inputPart(part)
    if (mapped !== undefined) parts.push(mapped)
  }
  return parts
}

/** The parts of `messages` Responses has no input part for (say, `input_audio`). */
const lostParts = (messages: ReadonlyArray<ChatMessage>): boolean =>
  messages.some((message) =>
    Array.isArray(message.content) && message.content.some((part) => inputPart(part) === undefined)
  )

/** Thinking this format signed (a non-empty `encrypted_content`), as reasoning items; other thinking cannot go back. */
const reasoningItems = (message: ChatMessage): Array<Json> => {
  const blocks = message["thinking_blocks"]
  if (!Array.isArray(blocks)) return []
  const items: Array<Json> = []
  for (const block of blocks) {
    if (!isRecord(block) || block["type"] !== "thinking") continue
    const signature = block["signature"]
    if (typeof signature !== "string" || signature === "") continue
    const text = typeof block["thinking"] === "string" ? block["thinking"] : ""
    items.push({
      type: "reasoning",
      summary: text === "" ? [] : [{ type: "summary_text", text }],
      encrypted_content: signature
    })
  }
  return items
}

/** The gateway's messages as Responses input items. */
export const inputItems = (messages: ReadonlyArray<ChatMessage>): Array<Json> => {
  const items: Array<Json> = []
  for (const message of messages) {
    switch (message.role) {
      case "assistant": {
        items.push(...reasoningItems(message))
        // the shape Codex sends its own history in: an earlier answer's text is output, not input
        const text = textOf(message.content)
        if (text !== "") items.push({ type: "message", role: "assistant", content: [{ type: "output_text", text }] })
        for (const call of message.tool_calls ?? []) {
          items.push({
            type: "function_call",
            call_id: call.id,
            name: call.function.name,
            arguments: call.function.arguments
          })
        }
        break
      }
      case "tool":
      case "function":
        items.push({
          type: "function_call_output",
          call_id: message.tool_call_id ?? message.name ?? "",
          output: textOf(message.content)
        })
        break
      default:
        items.push({ type: "message", role: message.role, content: inputContent(message.content) })
    }
  }
  return items
}

export const functionTool = (tool: ToolDefinition): Json => ({
  type: "function",
  name: tool.function.name,
  ...(tool.function.description === undefined ? {} : { description: tool.function.description }),
  parameters: tool.function.parameters ?? { type: "object", properties: {} },
  // Responses makes function tools strict unless told; chat completions' are not
  strict: tool.function["strict"] === true
})

const toolChoiceOf = (choice: ProviderCall["toolChoice"]): unknown =>
  typeof choice === "object" ? { type: "function", name: choice.function.name } : choice

/** `response_format` in Responses' `text.format` shape. */
const textFormat = (format: unknown): Json | undefined => {
  if (!isRecord(format)) return undefined
  if (format["type"] === "json_schema" && isRecord(format["json_schema"])) {
    return { type: "json_schema", ...format["json_schema"] }
  }
  return format["type"] === "json_object" || format["type"] === "text" ? { type: format["type"] } : undefined
}

/** Passthrough fields with a Responses name (written by `translatedBody`); any other is dropped. */
const MAPPED: ReadonlySet<string> = new Set([
  "temperature",
  "top_p",
  "user",
  "metadata",
  "parallel_tool_calls",
  "reasoning_effort",
  "response_format",
  "verbosity",
  "prompt_cache_key",
  "service_tier",
  "safety_identifier",
  "max_completion_tokens",
  // usage always comes in `response.completed`
  "stream_options"
])

const translatedBody = (call: ProviderCall, stream: boolean): Json => {
  const pass = call.passthrough
  const body: Json = { model: call.modelId, input: inputItems(call.messages), store: false, stream }
  for (
    const key of [
      "temperature",
      "top_p",
      "user",
      "metadata",
      "parallel_tool_calls",
      "prompt_cache_key",
      "service_tier",
      "safety_identifier"
    ]
  ) {
    if (pass[key] !== undefined && pass[key] !== null) body[key] = pass[key]
  }
  const maxTokens = call.maxTokens ?? pass["max_completion_tokens"]
  if (typeof maxTokens === "number") body["max_output_tokens"] = maxTokens
  if (typeof pass["reasoning_effort"] === "string") {
    body["reasoning"] = { effort: pass["reasoning_effort"], summary: "auto" }
    // without a stored response, the reasoning comes back encrypted or not at all
    body["include"] = ["reasoning.encrypted_content"]
  }
  const format = textFormat(pass["response_format"])
  if (format !== undefined || typeof pass["verbosity"] === "string") {
    body["text"] = {
      ...(format === undefined ? {} : { format }),
      ...(typeof pass["verbosity"] === "string" ? { verbosity: pass["verbosity"] } : {})
    }
  }
  if (call.tools !== undefined && call.tools.length > 0) body["tools"] = call.tools.map(functionTool)
  if (call.toolChoice !== undefined) body["tool_choice"] = toolChoiceOf(call.toolChoice)
  return body
}

/** The client's body with the model, `stream`, the shared tools it lacks and the loop's turns. */
const nativeBody = (
  call: ProviderCall,
  native: { readonly request: NativeRequest; readonly clientTurns: number },
  stream: boolean
): Json => {
  const source = native.request.body
  const body: Json = { ...source, model: call.modelId }
  // a whole answer asked without `stream` stays without it: the API's default
  if (stream || source["stream"] !== undefined) body["stream"] = stream
  const own = Array.isArray(source["tools"]) ? source["tools"] : []
  const names = new Set(
    own.flatMap((tool) => (isRecord(tool) && typeof tool["name"] === "string" ? [tool["name"]] : []))
  )
  const added = (call.tools ?? []).filter((tool) => !names.has(tool.function.name))
  if (added.length > 0) body["tools"] = [...own, ...added.map(functionTool)]
  const turns = call.messages.slice(native.clientTurns)
  if (turns.length > 0) {
    const input = source["input"]
    body["input"] = [
      ...(typeof input === "string" ? [{ role: "user", content: input }] : Array.isArray(input) ? input : []),
      ...inputItems(turns)
    ]
  }
  if (call.toolChoice !== undefined && source["tool_choice"] !== undefined && turns.length > 0) {
    // a later round's choice (`auto` after `required` was met by a shared tool)
    body["tool_choice"] = toolChoiceOf(call.toolChoice)
  }
  return body
}

export const requestBody = (call: ProviderCall, stream: boolean): Json => {
  const native = nativeOf(call)
  return native === undefined ? translatedBody(call, stream) : nativeBody(call, native, stream)
}

/** What of a call from another format this upstream leaves out. */
export const droppedFields = (call: ProviderCall): ReadonlyArray<string> => {
  if (nativeOf(call) !== undefined) return []
  // `store: true` asks to keep the answer, which the gateway never does (`store: false` always goes)
  const dropped = Object.keys(call.passthrough).filter((key) =>
    key === "store" ? call.passthrough[key] === true : !MAPPED.has(key)
  )
  if (lostParts(call.messages)) dropped.push("messages[].content[]")
  return dropped
}
