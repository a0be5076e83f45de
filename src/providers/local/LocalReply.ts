/**
 * What the offline `local/echo` model answers, as pure functions of the call. The answer is decided
 * once from the conversation, then rendered either as a whole `Completion` or as the chunks of a
 * stream, so both paths always agree. "Tokens" here are whitespace-separated words: predictable
 * counts make usage, `max_tokens` and streaming easy to assert in tests.
 */
import type { ChatMessage, ChunkChoice, Completion, CompletionChunk, ToolCall, Usage } from "../../kernel/Canonical.ts"
import { forcedToolName } from "../../kernel/ChatCall.ts"
import type { ProviderCall } from "../Provider.ts"

export const ECHO_MODEL = "echo"

/** The decided answer: plain text, or tool calls (one per `call ...` line). */
export type LocalAnswer =
  | { readonly _tag: "Text"; readonly text: string; readonly finishReason: "stop" | "length" }
  | { readonly _tag: "ToolCalls"; readonly toolCalls: ReadonlyArray<ToolCall> }

export type AnswerInput = Pick<ProviderCall, "messages" | "tools" | "toolChoice" | "maxTokens">

export const countWords = (text: string): number => text.match(/\S+/g)?.length ?? 0

/**
 * One piece per word, each carrying the whitespace before it (the last also the whitespace after),
 * so the pieces join back to exactly `text`. Text without words stays one piece, so that joining
 * still reproduces it.
 */
export const splitWords = (text: string): ReadonlyArray<string> =>
  text.match(/\s*\S+\s*$|\s*\S+/g) ?? (text === "" ? [] : [text])

/** The text a client would read: a string as is, or the `text` parts joined (images and the like carry none). */
export const textOf = (content: ChatMessage["content"]): string => {
  if (content === undefined || content === null) return ""
  if (typeof content === "string") return content
  return content.map((part) => (part.type === "text" && typeof part.text === "string" ? part.text : "")).join("")
}

export interface ToolCommand {
  readonly name: string
  /** The raw JSON text as typed, not yet parsed. */
  readonly args: string
}

// `[\s\S]` rather than `.` so that pretty-printed, multi-line arguments are accepted.
const COMMAND = /^call\s+([A-Za-z0-9_.-]+)(?:\s+([\s\S]*))?$/

/**
 * The commands of a message: one per line that starts with `call `, each running to the next such line
 * (so arguments may span lines); a message that does not start with one holds none.
 */
export const parseToolCommands = (text: string): ReadonlyArray<ToolCommand> => {
  const segments: Array<string> = []
  for (const line of text.trim().split("\n")) {
    if (/^\s*call\s+/.test(line) || segments.length === 0) segments.push(line)
    else segments[segments.length - 1] += `\n${line}`
  }
  const commands = segments.map(parseToolCommand)
  return commands.every((command) => command !== undefined) ? commands as ReadonlyArray<ToolCommand> : []
}

/** Reads `call <tool_name> <json-args>`; the arguments default to `{}`. */
export const parseToolCommand = (text: string): ToolCommand | undefined => {
  const match = COMMAND.exec(text.trim())
  if (match === null || match[1] === undefined) return undefined
  const args = match[2] ?? ""
  return { name: match[1], args: args === "" ? "{}" : args }
}

type ParsedArgs =
  | { readonly _tag: "Valid"; readonly json: string }
  | { readonly _tag: "Invalid"; readonly explanation: string }

/**
 * Function arguments are always a JSON object on the OpenAI wire, and tools decode them as one, so
 * an array or a bare number is refused like broken JSON rather than passed on to fail later.
 */
const parseArgs = (command: ToolCommand): ParsedArgs => {
  let value: unknown
  try {
    value = JSON.parse(command.args)
  } catch {
    return {
      _tag: "Invalid",
      explanation: `Not calling ${command.name}: the arguments are not valid JSON: ${command.args}`
    }
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return {
      _tag: "Invalid",
      explanation: `Not calling ${command.name}: the arguments must be a JSON object: ${command.args}`
    }
  }
  return { _tag: "Valid", json: JSON.stringify(value) }
}

const textAnswer = (text: string, maxTokens: number | undefined): LocalAnswer =>
  maxTokens !== undefined && countWords(text) > maxTokens
    ? { _tag: "Text", text: splitWords(text).slice(0, maxTokens).join(""), finishReason: "length" }
    : { _tag: "Text", text, finishReason: "stop" }

/** The results of the last tool round: the tool messages that end the conversation. */
const trailingToolResults = (messages: ReadonlyArray<ChatMessage>): string => {
  let start = messages.length
  while (start > 0 && messages[start - 1]?.role === "tool") start--
  return messages.slice(start).map((message) => textOf(message.content)).join("\n")
}

const lastUserText = (messages: ReadonlyArray<ChatMessage>): string =>
  textOf(messages.findLast((message) => message.role === "user")?.content)

/**
 * Decides the answer. `toolCallId` is passed in rather than drawn here so this stays pure; it is only
 * used when the answer calls tools (the n-th call after the first gets `<id>_<n>`).
 */
export const answer = (call: AnswerInput, toolCallId: string): LocalAnswer => {
  const last = call.messages.at(-1)
  if (last?.role === "tool") return textAnswer(trailingToolResults(call.messages), call.maxTokens)
  if (last?.role === "user" && call.toolChoice !== "none") {
    const offered = (name: string) => call.tools?.some((tool) => tool.function.name === name) === true
    const commands = parseToolCommands(textOf(last.content))
    const forced = forcedToolName(call.toolChoice)
    // a forced tool is called whatever the text says, with the command's arguments when one names that tool
    const wanted: ReadonlyArray<{ readonly name: string; readonly command: ToolCommand | undefined }> =
      forced !== undefined && offered(forced)
        ? [{ name: forced, command: commands.find((command) => command.name === forced) }]
        : commands.some((command) => offered(command.name))
        ? commands.filter((command) => offered(command.name)).map((command) => ({ name: command.name, command }))
        : call.toolChoice === "required" && call.tools?.[0] !== undefined
        ? [{ name: call.tools[0].function.name, command: undefined }]
        : []
    if (wanted.length > 0) {
      const toolCalls: Array<ToolCall> = []
      for (const [i, { command, name }] of wanted.entries()) {
        const args = command === undefined ? { _tag: "Valid" as const, json: "{}" } : parseArgs(command)
        if (args._tag === "Invalid") return textAnswer(args.explanation, call.maxTokens)
        toolCalls.push({
          id: i === 0 ? toolCallId : `${toolCallId}_${i + 1}`,
          type: "function",
          function: { name, arguments: args.json }
        })
      }
      // A truncated tool call would carry broken JSON, so `maxTokens` never cuts one.
      return { _tag: "ToolCalls", toolCalls }
    }
  }
  return textAnswer(lastUserText(call.messages), call.maxTokens)
}

export const usageOf = (messages: ReadonlyArray<ChatMessage>, reply: LocalAnswer): Usage => {
  const promptTokens = messages.reduce(
    (sum, message) =>
      sum + countWords(textOf(message.content)) +
      (message.tool_calls ?? []).reduce((args, toolCall) => args + countWords(toolCall.function.arguments), 0),
    0
  )
  const completionTokens = reply._tag === "Text"
    ? countWords(reply.text)
    : reply.toolCalls.reduce((sum, toolCall) => sum + Math.max(1, countWords(toolCall.function.arguments)), 0)
  return {
    promptTokens,
    completionTokens,
    totalTokens: promptTokens + completionTokens,
    cachedTokens: 0,
    reasoningTokens: 0
  }
}

const finishReasonOf = (reply: LocalAnswer): string => (reply._tag === "Text" ? reply.finishReason : "tool_calls")

export const completionOf = (reply: LocalAnswer, usage: Usage): Completion => ({
  model: ECHO_MODEL,
  choices: [{
    index: 0,
    message: reply._tag === "Text"
      ? { role: "assistant", content: reply.text }
      : { role: "assistant", content: null, tool_calls: reply.toolCalls },
    finish_reason: finishReasonOf(reply)
  }],
  usage,
  extra: {}
})

const chunk = (choices: ReadonlyArray<ChunkChoice>, usage: Usage | undefined = undefined): CompletionChunk => ({
  model: ECHO_MODEL,
  choices,
  usage,
  extra: {}
})

/** The stream OpenAI would send: role first, then the content, then the finish reason, then usage alone. */
export const chunksOf = (reply: LocalAnswer, usage: Usage): ReadonlyArray<CompletionChunk> => {
  const body: ReadonlyArray<ChunkChoice["delta"]> = reply._tag === "Text"
    ? splitWords(reply.text).map((content) => ({ content }))
    : reply.toolCalls.map((toolCall, index) => ({
      tool_calls: [{
        index,
        id: toolCall.id,
        type: "function",
        function: { name: toolCall.function.name, arguments: toolCall.function.arguments }
      }]
    }))
  return [
    chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]),
    ...body.map((delta) => chunk([{ index: 0, delta, finish_reason: null }])),
    chunk([{ index: 0, delta: {}, finish_reason: finishReasonOf(reply) }]),
    chunk([], usage)
  ]
}
