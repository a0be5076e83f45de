/** Message-level compression: which texts change, the client's own request, and memory per message. */
import { describe, expect, it } from "vitest"
import { compressNative, compressorOf } from "../../src/compression/CompressMessages.ts"
import type { ChatMessage } from "../../src/kernel/Canonical.ts"

const PRETTY = JSON.stringify({ a: [1, 2], b: "x  y" }, null, 2)
const COMPACT = "{\"a\":[1,2],\"b\":\"x  y\"}"

describe("compressorOf('safe')", () => {
  const compress = compressorOf("safe")

  it("compresses tool results (text and text parts) and tool-call arguments, nothing else", () => {
    const messages: ReadonlyArray<ChatMessage> = [
      { role: "system", content: PRETTY },
      { role: "user", content: PRETTY },
      {
        role: "assistant",
        content: PRETTY,
        tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: PRETTY } }]
      },
      { role: "tool", tool_call_id: "c1", content: PRETTY },
      {
        role: "tool",
        tool_call_id: "c2",
        content: [{ type: "text", text: PRETTY }, { type: "image_url", image_url: { url: "data:," } }]
      }
    ]
    const out = messages.map((message) => compress(message))
    expect(out[0]!.message).toBe(messages[0])
    expect(out[1]!.message).toBe(messages[1])
    expect(out[2]!.message).toEqual({
      ...messages[2],
      tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: COMPACT } }]
    })
    expect(out[3]!.message).toEqual({ role: "tool", tool_call_id: "c1", content: COMPACT })
    expect(out[4]!.message.content).toEqual([{ type: "text", text: COMPACT }, {
      type: "image_url",
      image_url: { url: "data:," }
    }])
    expect(out.flatMap((o) => o.changes)).toEqual([
      { before: PRETTY, after: COMPACT },
      { before: PRETTY, after: COMPACT },
      { before: PRETTY, after: COMPACT }
    ])
  })

  it("compresses a message object once: the same object comes back", () => {
    const message: ChatMessage = { role: "tool", tool_call_id: "c", content: PRETTY }
    expect(compress(message)).toBe(compress(message))
  })
})

describe("compressNative", () => {
  it("replaces the changed texts in the conversation, never in the system prompt, instructions or tools", () => {
    const native = {
      format: "anthropic" as const,
      headers: {},
      body: {
        system: PRETTY,
        instructions: PRETTY,
        tools: [{ name: "t", description: PRETTY }],
        messages: [{
          role: "user",
          content: [{ type: "tool_result", tool_use_id: "t1", content: [{ type: "text", text: PRETTY }] }]
        }]
      }
    }
    const out = compressNative(native, [{ before: PRETTY, after: COMPACT }])
    expect(out.body).toEqual({
      ...native.body,
      messages: [{
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "t1", content: [{ type: "text", text: COMPACT }] }]
      }]
    })
    expect(out.body["system"]).toBe(PRETTY)
    // nothing to replace: the very same request
    expect(compressNative(native, [])).toBe(native)
    expect(compressNative(native, [{ before: "absent", after: "x" }])).toBe(native)
  })
})
