/**
 * Compression of what goes upstream, message by message: tool results (`tool` messages' text) and tool
 * calls' JSON arguments. Nothing else is touched: not the system prompt, not the tool definitions, not
 * what the user or the model wrote. How a message is compressed depends on it and, under `aggressive`,
 * on the tool results before it, never on the messages after it (a provider's prompt cache still hits
 * on the next turn), and the same conversation always gives the same bytes. A compressor takes a
 * conversation's messages in order and remembers each message object, so a tool loop's later rounds do
 * not compress the history again.
 *
 * A client's own request (`NativeRequest`, sent as it came to an upstream of its format) holds the same
 * texts the messages were decoded from: `compressNative` replaces those strings wherever they stand in
 * its conversation, whatever the format, and leaves its system prompt and tools alone.
 */
import type { ChatMessage, ContentPart } from "../kernel/Canonical.ts"
import type { NativeRequest } from "../kernel/ChatCall.ts"
import { compressAggressive, type Cut, EXPAND_TOOL_ID, seenLinesOf } from "./Aggressive.ts"
import { compressArguments, compressSafe } from "./Safe.ts"

/** A level that changes what is sent. */
export type WireLevel = "safe" | "aggressive"

/** One text that compression changed. */
export interface Change {
  readonly before: string
  readonly after: string
}

/** What compressing one message did. */
export interface Compressed {
  readonly message: ChatMessage
  readonly changes: ReadonlyArray<Change>
  /** What `aggressive` cut from it, for `svc_expand_output`. */
  readonly cuts: ReadonlyArray<Cut>
}

type TextCompressor = (text: string) => string

const compressParts = (parts: ReadonlyArray<ContentPart>, compress: TextCompressor, changes: Array<Change>) => {
  let changed = false
  const out = parts.map((part) => {
    const text = part["text"]
    if (part.type !== "text" || typeof text !== "string") return part
    const after = compress(text)
    if (after === text) return part
    changed = true
    changes.push({ before: text, after })
    return { ...part, text: after }
  })
  return changed ? out : parts
}

const compressMessage = (message: ChatMessage, compress: TextCompressor, cuts: ReadonlyArray<Cut>): Compressed => {
  const changes: Array<Change> = []
  let next = message
  if (message.role === "tool") {
    const content = message.content
    if (typeof content === "string") {
      const after = compress(content)
      if (after !== content) {
        changes.push({ before: content, after })
        next = { ...message, content: after }
      }
    } else if (Array.isArray(content)) {
      const parts = compressParts(content, compress, changes)
      if (parts !== content) next = { ...message, content: parts }
    }
  } else if (message.role === "assistant" && message.tool_calls !== undefined) {
    let changed = false
    const calls = message.tool_calls.map((call) => {
      const after = ARGUMENTS(call.function.arguments)
      if (after === call.function.arguments) return call
      changed = true
      changes.push({ before: call.function.arguments, after })
      return { ...call, function: { ...call.function, arguments: after } }
    })
    if (changed) next = { ...message, tool_calls: calls }
  }
  return { message: next, changes, cuts }
}

/**
 * `compress` that sends a text as it was when compressing it fails (a string too large to build, a
 * bug): compression saves tokens, it never costs the request.
 */
const orAsItWas = (compress: TextCompressor): TextCompressor => (text) => {
  try {
    return compress(text)
  } catch {
    return text
  }
}

/** The texts of a tool message. */
const toolTexts = (message: ChatMessage): ReadonlyArray<string> => {
  const content = message.content
  if (typeof content === "string") return [content]
  if (!Array.isArray(content)) return []
  return content.flatMap((part) => (typeof part["text"] === "string" ? [part["text"]] : []))
}

const SAFE = orAsItWas(compressSafe)
const ARGUMENTS = orAsItWas(compressArguments)

/**
 * A compressor for one conversation at `level`: call it on the messages in their order. Under
 * `aggressive` it keeps the lines of the tool results as they went upstream (what the model saw),
 * which later results may cut; what `svc_expand_output` returned is never cut again.
 */
export const compressorOf = (level: WireLevel): (message: ChatMessage) => Compressed => {
  const memo = new WeakMap<ChatMessage, Compressed>()
  const seen = new Set<string>()
  const expandCalls = new Set<string>()
  return (message) => {
    let done = memo.get(message)
    if (done !== undefined) return done
    for (const call of message.tool_calls ?? []) if (call.function.name === EXPAND_TOOL_ID) expandCalls.add(call.id)
    const expanded = typeof message["tool_call_id"] === "string" && expandCalls.has(message["tool_call_id"])
    if (level === "safe" || message.role !== "tool" || expanded) done = compressMessage(message, SAFE, [])
    else {
      const cuts: Array<Cut> = []
      done = compressMessage(
        message,
        orAsItWas((text) => {
          const result = compressAggressive(text, seen)
          cuts.push(...result.cuts)
          return result.text
        }),
        cuts
      )
      for (const text of toolTexts(done.message)) for (const line of seenLinesOf(text)) seen.add(line)
    }
    memo.set(message, done)
    return done
  }
}

/** Keys of a client's request that hold no conversation: never walked, never changed. */
const UNTOUCHED = new Set(["system", "instructions", "tools", "tool_choice", "model", "metadata"])

/**
 * `native` with every string that compression changed in the messages replaced by its compressed
 * form; the request itself when none of them occurs in it.
 */
export const compressNative = (native: NativeRequest, changes: ReadonlyArray<Change>): NativeRequest => {
  if (changes.length === 0) return native
  const replacements = new Map(changes.map((change) => [change.before, change.after]))
  let changed = false
  const walk = (value: unknown): unknown => {
    if (typeof value === "string") {
      const after = replacements.get(value)
      if (after === undefined) return value
      changed = true
      return after
    }
    if (Array.isArray(value)) {
      let out: Array<unknown> | undefined
      value.forEach((item, index) => {
        const next = walk(item)
        if (next !== item) (out ??= [...value])[index] = next
      })
      return out ?? value
    }
    if (typeof value === "object" && value !== null) {
      let out: Record<string, unknown> | undefined
      for (const [key, item] of Object.entries(value)) {
        const next = walk(item)
        if (next !== item) (out ??= { ...value })[key] = next
      }
      return out ?? value
    }
    return value
  }
  const body: Record<string, unknown> = { ...native.body }
  for (const [key, value] of Object.entries(native.body)) if (!UNTOUCHED.has(key)) body[key] = walk(value)
  return changed ? { ...native, body } : native
}
