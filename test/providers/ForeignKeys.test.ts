/**
 * A call decoded from another format goes to a chat-completions upstream without the keys that format
 * refuses (cache breakpoints, thinking, `is_error`), and names them; a chat-completions client's own
 * keys are never touched.
 */
import { describe, expect, it } from "@effect/vitest"
import type { ChatMessage, ToolDefinition } from "../../src/kernel/Canonical.ts"
import { stripForeignKeys } from "../../src/providers/openai/ForeignKeys.ts"
import { buildRequestBody, droppedFields } from "../../src/providers/openai/OpenAiMapping.ts"
import type { ProviderCall } from "../../src/providers/Provider.ts"

const messages: ReadonlyArray<ChatMessage> = [
  { role: "system", content: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral", ttl: "1h" } }] },
  { role: "user", content: "hi" },
  {
    role: "assistant",
    content: null,
    reasoning_content: "thinking...",
    thinking_blocks: [{ type: "thinking", thinking: "thinking...", signature: "sig" }],
    tool_calls: [{ id: "t1", type: "function", function: { name: "f", arguments: "{}" } }]
  },
  { role: "tool", tool_call_id: "t1", content: "boom", is_error: true }
]
const tools: ReadonlyArray<ToolDefinition> = [
  { type: "function", function: { name: "f", parameters: {} }, cache_control: { type: "ephemeral" } }
]

const call = (native: boolean): ProviderCall => ({
  modelId: "gpt-4o",
  messages,
  tools,
  toolChoice: undefined,
  maxTokens: undefined,
  passthrough: {},
  requestId: "r",
  ...(native ? { native: { request: { format: "anthropic", body: {}, headers: {} }, clientTurns: 4 } } : {})
})

describe("stripForeignKeys", () => {
  it("removes each foreign key and names each kind once", () => {
    const stripped = stripForeignKeys(messages, tools)
    expect(stripped.messages).toEqual([
      { role: "system", content: [{ type: "text", text: "Be brief." }] },
      { role: "user", content: "hi" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "t1", type: "function", function: { name: "f", arguments: "{}" } }]
      },
      { role: "tool", tool_call_id: "t1", content: "boom" }
    ])
    expect(stripped.tools).toEqual([{ type: "function", function: { name: "f", parameters: {} } }])
    expect([...stripped.dropped].sort()).toEqual([
      "messages[].content[].cache_control",
      "messages[].is_error",
      "messages[].reasoning_content",
      "messages[].thinking_blocks",
      "tools[].cache_control"
    ])
  })

  it("leaves a call with nothing foreign as it is", () => {
    const plain: ReadonlyArray<ChatMessage> = [{ role: "user", content: [{ type: "text", text: "hi" }] }]
    expect(stripForeignKeys(plain, undefined)).toEqual({ messages: plain, tools: undefined, dropped: [] })
  })
})

describe("buildRequestBody and droppedFields", () => {
  it("strip only a call decoded from another format", () => {
    expect(buildRequestBody(call(false), false)["messages"]).toBe(messages)
    expect(droppedFields(call(false))).toEqual([])
    const body = buildRequestBody(call(true), false)
    expect(JSON.stringify(body)).not.toMatch(/cache_control|thinking|is_error/)
    expect(droppedFields(call(true))).toHaveLength(5)
  })
})
