/**
 * The core's stream as Anthropic's server-sent events, exactly in the Messages API's order:
 * `message_start` (with the input usage), then per content block `content_block_start`, a `ping` after
 * the first, its `content_block_delta`s (`text_delta`, `thinking_delta`, `signature_delta`,
 * `input_json_delta`) and `content_block_stop`; after the last chunk `message_delta` (the stop reason
 * and the final usage) and `message_stop`. A state machine over the chunks, in plain code per chunk.
 */
import type { Identity } from "../../core/Dialect.ts"
import type { Outcome } from "../../core/Outcome.ts"
import type { ChatCall } from "../../kernel/ChatCall.ts"
import type { ChunkChoice, CompletionChunk, NativeDetail } from "../../kernel/ChatWire.ts"
import { type ChunkPull, mapPullThen } from "../../kernel/ChunkPull.ts"
import { anthropicUsage, gatewayFields, stopOf } from "./MessagesAnswer.ts"

const frame = (type: string, data: object): string => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`

type Open =
  | { readonly kind: "text"; readonly index: number }
  | { readonly kind: "thinking"; readonly index: number }
  | { readonly kind: "tool"; readonly index: number; readonly call: number }

/**
 * The input tokens to announce in `message_start` when the upstream has not said yet (a chat-completions
 * upstream reports usage at the end): a character estimate of the conversation, four characters a token.
 * `message_delta` carries the upstream's own count.
 */
export const estimateInputTokens = (call: ChatCall): number => {
  let characters = 0
  for (const message of call.messages) {
    const content = message.content
    if (typeof content === "string") characters += content.length
    else if (Array.isArray(content)) for (const part of content) characters += typeof part["text"] === "string" ? part["text"].length : 0
    for (const toolCall of message.tool_calls ?? []) characters += toolCall.function.arguments.length + toolCall.function.name.length
  }
  if (call.tools !== undefined) characters += JSON.stringify(call.tools).length
  return Math.ceil(characters / 4)
}

export const encodeMessageStream = <E>(
  identity: Identity,
  call: ChatCall,
  chunks: ChunkPull<CompletionChunk, E>,
  outcome: () => Outcome
): ChunkPull<string, E> => {
  let started = false
  let pinged = false
  let blocks = 0
  let open: Open | undefined
  let finish: string | null = null
  let native: NativeDetail | undefined

  const start = (out: Array<string>): void => {
    started = true
    const usage = outcome().usage
    const announced = usage.promptTokens > 0
      ? anthropicUsage(usage)
      : { input_tokens: estimateInputTokens(call), output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }
    out.push(frame("message_start", {
      type: "message_start",
      message: {
        id: identity.id,
        type: "message",
        role: "assistant",
        model: identity.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...announced, output_tokens: Math.max(1, usage.completionTokens) }
      }
    }))
  }

  const close = (out: Array<string>): void => {
    if (open === undefined) return
    out.push(frame("content_block_stop", { type: "content_block_stop", index: open.index }))
    open = undefined
  }

  const begin = (out: Array<string>, block: object, next: (index: number) => Open): Open => {
    close(out)
    const index = blocks++
    out.push(frame("content_block_start", { type: "content_block_start", index, content_block: block }))
    if (!pinged) {
      pinged = true
      out.push(frame("ping", { type: "ping" }))
    }
    open = next(index)
    return open
  }

  const delta = (out: Array<string>, index: number, body: object): void => {
    out.push(frame("content_block_delta", { type: "content_block_delta", index, delta: body }))
  }

  const choice = (out: Array<string>, choice: ChunkChoice): void => {
    const d = choice.delta
    const reasoning = d["reasoning_content"]
    if (typeof reasoning === "string" && reasoning !== "") {
      const block = open?.kind === "thinking" ? open : begin(out, { type: "thinking", thinking: "", signature: "" }, (index) => ({ kind: "thinking", index }))
      delta(out, block.index, { type: "thinking_delta", thinking: reasoning })
    }
    const signature = d["reasoning_signature"]
    if (typeof signature === "string" && signature !== "") {
      const block = open?.kind === "thinking" ? open : begin(out, { type: "thinking", thinking: "", signature: "" }, (index) => ({ kind: "thinking", index }))
      delta(out, block.index, { type: "signature_delta", signature })
    }
    const redacted = d["redacted_reasoning"]
    if (typeof redacted === "string") {
      begin(out, { type: "redacted_thinking", data: redacted }, (index) => ({ kind: "thinking", index }))
      close(out)
    }
    const content = d.content
    if (typeof content === "string" && content !== "") {
      const block = open?.kind === "text" ? open : begin(out, { type: "text", text: "" }, (index) => ({ kind: "text", index }))
      delta(out, block.index, { type: "text_delta", text: content })
    }
    for (const toolCall of d.tool_calls ?? []) {
      const current = open?.kind === "tool" && open.call === toolCall.index ? open : undefined
      const block = current ?? begin(
        out,
        { type: "tool_use", id: toolCall.id ?? "", name: toolCall.function?.name ?? "", input: {} },
        (index) => ({ kind: "tool", index, call: toolCall.index })
      )
      // the call's opening chunk (it names the call) starts the block; every later piece is a delta, empty ones too
      const args = toolCall.function?.arguments
      if (args !== undefined && (args !== "" || current !== undefined)) {
        delta(out, block.index, { type: "input_json_delta", partial_json: args })
      }
    }
    if (choice.finish_reason !== undefined && choice.finish_reason !== null) finish = choice.finish_reason
  }

  return mapPullThen(chunks, (batch) => {
    const out: Array<string> = []
    for (const chunk of batch) {
      if (!started) start(out)
      if (chunk.native !== undefined) native = chunk.native
      for (const each of chunk.choices) if (each.index === 0) choice(out, each)
    }
    return out
  }, () => {
    const out: Array<string> = []
    if (!started) start(out)
    close(out)
    const final = outcome()
    out.push(frame("message_delta", {
      type: "message_delta",
      delta: stopOf(finish, native),
      usage: anthropicUsage(final.usage),
      ...gatewayFields(final)
    }))
    out.push(frame("message_stop", { type: "message_stop" }))
    return out
  })
}
