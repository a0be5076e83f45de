/**
 * A call as Gemini's `generateContent` body: system and developer messages gathered into
 * `systemInstruction`, turns as `contents` (`user` / `model`, consecutive turns of a role merged), text,
 * images (`data:` URLs as `inlineData`, others as `fileData`), tool calls as `functionCall` parts (a
 * thinking block's signature back on the turn's first call, where Gemini checks it), tool results as
 * `functionResponse` parts named after their call, function tools with their schemas cleaned
 * (`GeminiSchema.ts`), tool choice as `toolConfig`, and the sampling settings in `generationConfig`
 * (`reasoning_effort` as a thinking budget with thought summaries). What Gemini has no field for is
 * left out and named by `droppedFields`.
 */
import type { ChatMessage, ContentPart } from "../../kernel/Canonical.ts"
import { isRecord } from "../../kernel/Json.ts"
import type { ProviderCall } from "../Provider.ts"
import { geminiSchema } from "./GeminiSchema.ts"

type Json = Record<string, unknown>

/** Thinking budgets for OpenAI's reasoning efforts (tokens). */
const BUDGETS: Readonly<Record<string, number>> = { none: 0, minimal: 512, low: 1024, medium: 8192, high: 24576 }

/** Passthrough fields with a Gemini name; any other is dropped. */
const MAPPED: ReadonlySet<string> = new Set([
  "temperature",
  "top_p",
  "top_k",
  "stop",
  "seed",
  "presence_penalty",
  "frequency_penalty",
  "response_format",
  "reasoning_effort",
  "max_completion_tokens",
  "stream_options"
])

const textOf = (content: ChatMessage["content"]): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.map((part) => (typeof part["text"] === "string" ? part["text"] : "")).join("")
    : ""

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s

/** A content part as Gemini parts; undefined: Gemini has none for it. */
const partOf = (part: ContentPart): Json | undefined => {
  if (part.type === "text" && typeof part["text"] === "string") return { text: part["text"] }
  if (part.type === "image_url") {
    const image = part["image_url"]
    const url = isRecord(image) ? image["url"] : image
    if (typeof url !== "string") return undefined
    const data = DATA_URL.exec(url)
    return data === null ? { fileData: { fileUri: url } } : { inlineData: { mimeType: data[1], data: data[2] } }
  }
  return undefined
}

const userParts = (content: ChatMessage["content"]): Array<Json> => {
  if (typeof content === "string") return content === "" ? [] : [{ text: content }]
  if (!Array.isArray(content)) return []
  const parts: Array<Json> = []
  for (const part of content) {
    const mapped = partOf(part)
    if (mapped !== undefined) parts.push(mapped)
  }
  return parts
}

const argsOf = (args: string): Json => {
  try {
    const value: unknown = JSON.parse(args)
    return isRecord(value) ? { ...value } : {}
  } catch {
    return {}
  }
}

/** A tool's output as the `response` object Gemini wants: the JSON object it is, else `{content}`. */
const responseOf = (content: string): Json => {
  try {
    const value: unknown = JSON.parse(content)
    if (isRecord(value)) return { ...value }
  } catch {
    // plain text
  }
  return { content }
}

/** The signature of a model turn's thinking, if Gemini gave one. */
const signatureOf = (message: ChatMessage): string | undefined => {
  const blocks = message["thinking_blocks"]
  if (!Array.isArray(blocks)) return undefined
  for (const block of blocks) {
    if (isRecord(block) && typeof block["signature"] === "string" && block["signature"] !== "") {
      return block["signature"]
    }
  }
  return undefined
}

const modelParts = (message: ChatMessage): Array<Json> => {
  const parts: Array<Json> = []
  const text = textOf(message.content)
  if (text !== "") parts.push({ text })
  for (const call of message.tool_calls ?? []) {
    parts.push({ functionCall: { name: call.function.name, args: argsOf(call.function.arguments) } })
  }
  const signature = signatureOf(message)
  if (signature !== undefined) {
    const first = parts.find((part) => part["functionCall"] !== undefined) ?? parts[0]
    if (first !== undefined) first["thoughtSignature"] = signature
    else parts.push({ text: "", thoughtSignature: signature })
  }
  return parts
}

export interface GeminiTurns {
  readonly systemInstruction: Json | undefined
  readonly contents: Array<Json>
}

export const turnsOf = (messages: ReadonlyArray<ChatMessage>): GeminiTurns => {
  const system: Array<Json> = []
  const contents: Array<{ role: string; parts: Array<Json> }> = []
  const names = new Map<string, string>()
  const push = (role: string, parts: ReadonlyArray<Json>): void => {
    if (parts.length === 0) return
    const last = contents[contents.length - 1]
    if (last !== undefined && last.role === role) last.parts.push(...parts)
    else contents.push({ role, parts: [...parts] })
  }
  for (const message of messages) {
    switch (message.role) {
      case "system":
      case "developer":
        system.push(...userParts(message.content))
        break
      case "assistant":
        for (const call of message.tool_calls ?? []) names.set(call.id, call.function.name)
        push("model", modelParts(message))
        break
      case "tool":
      case "function": {
        const name = names.get(message.tool_call_id ?? "") ?? message.name ?? message.tool_call_id ?? ""
        push("user", [{ functionResponse: { name, response: responseOf(textOf(message.content)) } }])
        break
      }
      default:
        push("user", userParts(message.content))
    }
  }
  return { systemInstruction: system.length === 0 ? undefined : { parts: system }, contents }
}

const toolConfigOf = (choice: ProviderCall["toolChoice"]): Json | undefined => {
  if (choice === undefined) return undefined
  if (typeof choice === "object") {
    return { functionCallingConfig: { mode: "ANY", allowedFunctionNames: [choice.function.name] } }
  }
  return { functionCallingConfig: { mode: choice === "required" ? "ANY" : choice === "none" ? "NONE" : "AUTO" } }
}

const generationConfigOf = (call: ProviderCall): Json => {
  const pass = call.passthrough
  const config: Json = {}
  const maxTokens = call.maxTokens ?? pass["max_completion_tokens"]
  if (typeof maxTokens === "number") config["maxOutputTokens"] = maxTokens
  if (typeof pass["temperature"] === "number") config["temperature"] = pass["temperature"]
  if (typeof pass["top_p"] === "number") config["topP"] = pass["top_p"]
  if (typeof pass["top_k"] === "number") config["topK"] = pass["top_k"]
  if (typeof pass["seed"] === "number") config["seed"] = pass["seed"]
  if (typeof pass["presence_penalty"] === "number") config["presencePenalty"] = pass["presence_penalty"]
  if (typeof pass["frequency_penalty"] === "number") config["frequencyPenalty"] = pass["frequency_penalty"]
  const stop = pass["stop"]
  if (typeof stop === "string") config["stopSequences"] = [stop]
  else if (Array.isArray(stop)) config["stopSequences"] = stop
  const format = pass["response_format"]
  if (isRecord(format) && (format["type"] === "json_object" || format["type"] === "json_schema")) {
    config["responseMimeType"] = "application/json"
    const schema = isRecord(format["json_schema"]) ? geminiSchema(format["json_schema"]["schema"]) : undefined
    if (schema !== undefined) config["responseSchema"] = schema
  }
  const effort = pass["reasoning_effort"]
  if (typeof effort === "string" && BUDGETS[effort] !== undefined) {
    const budget = BUDGETS[effort]!
    config["thinkingConfig"] = budget === 0 ? { thinkingBudget: 0 } : { thinkingBudget: budget, includeThoughts: true }
  }
  return config
}

export const requestBody = (call: ProviderCall): Json => {
  const { contents, systemInstruction } = turnsOf(call.messages)
  const body: Json = { contents }
  if (systemInstruction !== undefined) body["systemInstruction"] = systemInstruction
  if (call.tools !== undefined && call.tools.length > 0) {
    body["tools"] = [{
      functionDeclarations: call.tools.map((tool) => {
        const parameters = geminiSchema(tool.function.parameters)
        return {
          name: tool.function.name,
          ...(tool.function.description === undefined ? {} : { description: tool.function.description }),
          ...(parameters === undefined ? {} : { parameters })
        }
      })
    }]
    const toolConfig = toolConfigOf(call.toolChoice)
    if (toolConfig !== undefined) body["toolConfig"] = toolConfig
  }
  const config = generationConfigOf(call)
  if (Object.keys(config).length > 0) body["generationConfig"] = config
  return body
}

/** What of `call` Gemini cannot take. */
export const droppedFields = (call: ProviderCall): ReadonlyArray<string> => {
  const dropped = Object.keys(call.passthrough).filter((key) => !MAPPED.has(key))
  if (
    call.messages.some((message) =>
      Array.isArray(message.content) && message.content.some((part) => partOf(part) === undefined)
    )
  ) {
    dropped.push("messages[].content[]")
  }
  return dropped
}
