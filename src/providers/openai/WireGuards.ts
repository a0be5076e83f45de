/**
 * Checks that say whether parsed JSON already is a `Choice` / `ChunkChoice` array as the Canonical schemas
 * define them, without building anything. Decoding a streamed chunk through the schemas copies every
 * choice, delta and tool call, and cost more than the `JSON.parse` before it, on every event of every
 * stream. Upstream bodies are nearly always well formed: when a check passes, the parsed JSON is used as
 * it is; when it fails, the schema decodes it again to say what is wrong. `WireGuards.test.ts` holds
 * each check to its schema over valid and malformed inputs.
 */
import type { Choice, ChunkChoice } from "../../kernel/Canonical.ts"
import { isRecord } from "../../kernel/Json.ts"

const isNumber = (u: unknown): boolean => typeof u === "number"
const isString = (u: unknown): boolean => typeof u === "string"
/** `Schema.optionalKey(S)`: the key may be missing; JSON has no `undefined`, so absent means missing. */
const optional = (u: unknown, check: (u: unknown) => boolean): boolean => u === undefined || check(u)
const isStringOrNull = (u: unknown): boolean => u === null || typeof u === "string"

const every = (u: unknown, check: (item: unknown) => boolean): boolean => {
  if (!Array.isArray(u)) return false
  for (const item of u) if (!check(item)) return false
  return true
}

const isToolCall = (u: unknown): boolean => {
  if (!isRecord(u) || !isString(u["id"]) || u["type"] !== "function") return false
  const fn = u["function"]
  return isRecord(fn) && isString(fn["name"]) && isString(fn["arguments"])
}

const isAssistantMessage = (u: unknown): boolean =>
  isRecord(u) && u["role"] === "assistant" && isStringOrNull(u["content"]) &&
  optional(u["tool_calls"], (calls) => every(calls, isToolCall)) &&
  optional(u["refusal"], isStringOrNull)

const isChoice = (u: unknown): boolean =>
  isRecord(u) && isNumber(u["index"]) && isAssistantMessage(u["message"]) && isStringOrNull(u["finish_reason"])

const isToolCallDelta = (u: unknown): boolean =>
  isRecord(u) && isNumber(u["index"]) && optional(u["id"], isString) &&
  optional(u["type"], (type) => type === "function") &&
  optional(u["function"], (fn) => isRecord(fn) && optional(fn["name"], isString) && optional(fn["arguments"], isString))

const isDelta = (u: unknown): boolean =>
  isRecord(u) && optional(u["role"], isString) && optional(u["content"], isStringOrNull) &&
  optional(u["tool_calls"], (calls) => every(calls, isToolCallDelta)) &&
  optional(u["refusal"], isStringOrNull)

const isChunkChoice = (u: unknown): boolean =>
  isRecord(u) && isNumber(u["index"]) && isDelta(u["delta"]) && optional(u["finish_reason"], isStringOrNull)

/** Whether `u` is what `Schema.Array(Choice)` accepts. */
export const isChoices = (u: unknown): u is ReadonlyArray<Choice> => every(u, isChoice)

/** Whether `u` is what `Schema.Array(ChunkChoice)` accepts. */
export const isChunkChoices = (u: unknown): u is ReadonlyArray<ChunkChoice> => every(u, isChunkChoice)
