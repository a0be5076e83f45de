/**
 * Prompt caches kept warm for a chat client sent to Anthropic: a 20-turn agent conversation replayed
 * turn by turn, as the gateway writes each turn's Messages request (compressed at each level, then
 * given its breakpoints). Every turn's prompt up to the previous turn's last breakpoint must be the
 * previous turn's, byte for byte (breakpoint markers aside, which are not part of the cached text), or
 * the provider would read nothing from its cache. And the rules: at most four breakpoints, a client's
 * own never moved, nothing added to a one-off question.
 */
import { describe, expect, it } from "vitest"
import { requestCompression } from "../../../src/compression/RequestCompression.ts"
import type { ChatMessage, ToolDefinition } from "../../../src/kernel/Canonical.ts"
import type { CompressionLevel } from "../../../src/kernel/CompressionLevel.ts"
import { requestBody } from "../../../src/providers/anthropic/AnthropicRequest.ts"
import { withCacheBreakpoints } from "../../../src/providers/anthropic/CacheBreakpoints.ts"
import type { ProviderCall } from "../../../src/providers/Provider.ts"

type Json = Record<string, unknown>

const bash: ToolDefinition = {
  type: "function",
  function: { name: "bash", description: "Runs a command", parameters: { type: "object", properties: {} } }
}

/** What an agent's tools print: pretty JSON, repeated warnings, a test run: each level changes some. */
const outputOf = (turn: number): string => {
  switch (turn % 3) {
    case 0:
      return JSON.stringify({ turn, files: Array.from({ length: 8 }, (_, i) => `src/f${i}.ts`) }, null, 2)
    case 1:
      return [
        "added 3 packages   ",
        "",
        "",
        ...["inflight", "glob", "rimraf", "uuid"].map((name) =>
          `npm warn deprecated ${name}: this module is not supported`
        ),
        `turn ${turn}`
      ].join("\n")
    default:
      return [` ✓ test/a${turn}.test.ts (3 tests) 12ms   `, "", "", "", " Test Files  1 passed"].join("\n")
  }
}

/** The conversation as the client sends it on turn `n` (1-based): n - 1 tool rounds, then a question. */
const historyAt = (n: number): Array<ChatMessage> => {
  const history: Array<ChatMessage> = [
    { role: "system", content: "You are a coding agent. Use bash." },
    { role: "user", content: "Fix the build." }
  ]
  for (let turn = 1; turn < n; turn++) {
    history.push({
      role: "assistant",
      content: null,
      tool_calls: [{
        id: `call_${turn}`,
        type: "function",
        function: { name: "bash", arguments: `{"cmd":"step ${turn}"}` }
      }]
    })
    history.push({ role: "tool", tool_call_id: `call_${turn}`, content: outputOf(turn) })
  }
  return history
}

/** Turn `n`'s request as the gateway writes it for an Anthropic target, at `level`. */
const bodyAt = (n: number, level: CompressionLevel): Json => {
  const messages = requestCompression(level).wire(historyAt(n))
  const call: ProviderCall = {
    modelId: "claude-sonnet-4-5",
    messages,
    tools: [bash],
    toolChoice: undefined,
    maxTokens: undefined,
    passthrough: {},
    requestId: `req_${n}`
  }
  return withCacheBreakpoints(requestBody(call, true))
}

/**
 * A value without its breakpoint markers (they say where to cache, they are not the cached text), and
 * a message's text as the one text block it is shorthand for (the API reads both as the same prompt).
 */
const unmarked = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(unmarked)
  if (typeof value !== "object" || value === null) return value
  return Object.fromEntries(
    Object.entries(value).filter(([key]) => key !== "cache_control").map(([key, inner]) => [
      key,
      key === "content" && typeof inner === "string" ? [{ type: "text", text: inner }] : unmarked(inner)
    ])
  )
}

const breakpoints = (value: unknown): number => {
  if (Array.isArray(value)) return value.reduce((n: number, inner) => n + breakpoints(inner), 0)
  if (typeof value !== "object" || value === null) return 0
  return Object.entries(value).reduce(
    (n, [key, inner]) => n + (key === "cache_control" ? 1 : breakpoints(inner)),
    0
  )
}

/** The cached prefix up to the body's last breakpoint: tools, system and messages through the marked one. */
const prefixOf = (body: Json, throughMessage: number): string =>
  JSON.stringify(unmarked({
    tools: body["tools"],
    system: body["system"],
    messages: (body["messages"] as Array<unknown>).slice(0, throughMessage + 1)
  }))

const lastMarkedMessage = (body: Json): number => {
  const messages = body["messages"] as Array<unknown>
  for (let i = messages.length - 1; i >= 0; i--) if (breakpoints(messages[i]) > 0) return i
  return -1
}

describe("a 20-turn agent conversation to Anthropic", () => {
  for (const level of ["off", "safe", "aggressive"] as const) {
    it(`at ${level}: each turn's prompt starts with the previous turn's cached prefix, byte for byte`, () => {
      for (let n = 1; n < 20; n++) {
        const before = bodyAt(n, level)
        const after = bodyAt(n + 1, level)
        const marked = lastMarkedMessage(before)
        expect(marked, `turn ${n}`).toBe((before["messages"] as Array<unknown>).length - 1)
        expect(prefixOf(after, marked), `turn ${n + 1} against turn ${n}`).toBe(prefixOf(before, marked))
        expect(breakpoints(after)).toBe(3)
      }
    })
  }
})

describe("withCacheBreakpoints", () => {
  const body = (extra: Json = {}): Json => ({
    model: "m",
    max_tokens: 100,
    system: "Be brief.",
    tools: [{ name: "a", input_schema: {} }, { name: "b", input_schema: {} }],
    messages: [
      { role: "user", content: "hi" },
      { role: "assistant", content: "hello" },
      { role: "user", content: [{ type: "text", text: "again" }] }
    ],
    ...extra
  })

  it("marks the end of the tools, of the system prompt and of the latest turn", () => {
    const marked = withCacheBreakpoints(body())
    expect(marked["tools"]).toEqual([
      { name: "a", input_schema: {} },
      { name: "b", input_schema: {}, cache_control: { type: "ephemeral" } }
    ])
    expect(marked["system"]).toEqual([{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }])
    expect((marked["messages"] as Array<Json>).at(-1)).toEqual({
      role: "user",
      content: [{ type: "text", text: "again", cache_control: { type: "ephemeral" } }]
    })
  })

  it("a request with a breakpoint of its own anywhere is left as it is", () => {
    const own = body({ system: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }] })
    expect(withCacheBreakpoints(own)).toBe(own)
  })

  it("a one-off question (no tools, no earlier answer) gets none: a cache write would cost more than it saves", () => {
    const oneOff: Json = { model: "m", max_tokens: 10, messages: [{ role: "user", content: "What is 2+2?" }] }
    expect(withCacheBreakpoints(oneOff)).toBe(oneOff)
  })

  it("a thinking block is never marked: the one before it is", () => {
    const thinking = body({
      messages: [
        { role: "user", content: "hi" },
        {
          role: "assistant",
          content: [{ type: "text", text: "hm" }, { type: "thinking", thinking: "...", signature: "s" }]
        }
      ]
    })
    const last = (withCacheBreakpoints(thinking)["messages"] as Array<Json>).at(-1)!
    expect(last["content"]).toEqual([
      { type: "text", text: "hm", cache_control: { type: "ephemeral" } },
      { type: "thinking", thinking: "...", signature: "s" }
    ])
  })
})
