/**
 * Anthropic Messages wire builders for the fake upstream (`FakeUpstream.ts`): whole messages, the
 * documented event sequences of a stream (text, tool use with argument deltas, thinking with its
 * signature), and Anthropic's error body, so a test scripts an Anthropic upstream the way it scripts an
 * OpenAI one. A gateway's routing entry for it: `adapter: anthropic`, `base_url: <upstream url>`.
 */
import { type Reply, reply } from "./FakeUpstream.ts"

export interface AnthropicUsage {
  readonly input_tokens: number
  readonly output_tokens: number
  readonly cache_read_input_tokens?: number
  readonly cache_creation_input_tokens?: number
}

export type ContentBlock =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "tool_use"; readonly id: string; readonly name: string; readonly input: unknown }
  | { readonly type: "thinking"; readonly thinking: string; readonly signature: string }

export const anthropicUsage = (input: number, output: number, cacheRead = 0, cacheCreation = 0): AnthropicUsage => ({
  input_tokens: input,
  output_tokens: output,
  cache_read_input_tokens: cacheRead,
  cache_creation_input_tokens: cacheCreation
})

/** A whole message as the Messages API answers it. */
export const anthropicMessage = (options: {
  readonly content: ReadonlyArray<ContentBlock>
  readonly stopReason?: string
  readonly usage?: AnthropicUsage
  readonly model?: string
}) => ({
  id: "msg_fake01",
  type: "message",
  role: "assistant",
  model: options.model ?? "claude-fake-1",
  content: options.content,
  stop_reason: options.stopReason ??
    (options.content.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn"),
  stop_sequence: null,
  usage: options.usage ?? anthropicUsage(10, 5)
})

/** The events of a streamed message with the given blocks, in the order the Messages API sends them. */
export const anthropicEvents = (options: {
  readonly content: ReadonlyArray<ContentBlock>
  readonly stopReason?: string
  readonly usage?: AnthropicUsage
  readonly model?: string
}): ReadonlyArray<Readonly<Record<string, unknown>>> => {
  const whole = anthropicMessage(options)
  const events: Array<Readonly<Record<string, unknown>>> = [{
    type: "message_start",
    message: { ...whole, content: [], stop_reason: null, usage: { ...whole.usage, output_tokens: 1 } }
  }]
  options.content.forEach((block, index) => {
    switch (block.type) {
      case "text":
        events.push({ type: "content_block_start", index, content_block: { type: "text", text: "" } })
        if (index === 0) events.push({ type: "ping" })
        for (const piece of block.text.match(/\S+\s*|\s+/g) ?? []) {
          events.push({ type: "content_block_delta", index, delta: { type: "text_delta", text: piece } })
        }
        break
      case "tool_use": {
        events.push({
          type: "content_block_start",
          index,
          content_block: { type: "tool_use", id: block.id, name: block.name, input: {} }
        })
        if (index === 0) events.push({ type: "ping" })
        const json = JSON.stringify(block.input)
        const half = Math.floor(json.length / 2)
        for (const partial_json of ["", json.slice(0, half), json.slice(half)]) {
          events.push({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json } })
        }
        break
      }
      case "thinking":
        events.push({
          type: "content_block_start",
          index,
          content_block: { type: "thinking", thinking: "", signature: "" }
        })
        if (index === 0) events.push({ type: "ping" })
        events.push({ type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: block.thinking } })
        events.push({
          type: "content_block_delta",
          index,
          delta: { type: "signature_delta", signature: block.signature }
        })
        break
    }
    events.push({ type: "content_block_stop", index })
  })
  events.push({
    type: "message_delta",
    delta: { stop_reason: whole.stop_reason, stop_sequence: null },
    usage: { output_tokens: whole.usage.output_tokens }
  })
  events.push({ type: "message_stop" })
  return events
}

/** A streamed message as the fake upstream writes it: named events, no `[DONE]`. */
export const anthropicStream = (
  options: Parameters<typeof anthropicEvents>[0],
  end: "end" | "destroy" | "hang" = "end"
): Reply => reply.sse(anthropicEvents(options), { named: true, end })

/** Anthropic's error body with its status (529 `overloaded_error`, 400 `invalid_request_error`, ...). */
export const anthropicError = (status: number, type: string, message: string): Reply =>
  reply.json({ type: "error", error: { type, message } }, status)
