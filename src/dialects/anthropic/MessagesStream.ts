/**
 * The core's stream as Anthropic's server-sent events, in the Messages API's order: `message_start` at
 * the first chunk; per content block `content_block_start` (a `ping` after the first one only), its
 * `content_block_delta`s (`thinking_delta`, `signature_delta`, `text_delta`, `input_json_delta`) and
 * `content_block_stop` once the next block starts or the message ends; after the last chunk
 * `message_delta` (the stop reason, the final usage, the gateway's own fields) and `message_stop`. A state
 * machine over the chunks, in plain code per chunk; each element it answers holds one or more whole frames.
 */
import type { Identity, StreamedAnswer } from "../../core/Dialect.ts"
import type { ChatMessage, ChunkChoice, CompletionChunk, NativeDetail, ToolCallDelta } from "../../kernel/Canonical.ts"
import type { ChatCall } from "../../kernel/ChatCall.ts"
import { type ChunkPull, mapPullThen } from "../../kernel/ChunkPull.ts"
import { anthropicUsage, gatewayFields, stopOf } from "./MessagesAnswer.ts"
import { toolUseId } from "./MessagesIds.ts"

const frame = (type: string, data: object): string => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`

/** A text delta's frame, nearly every event of a stream: the bytes `frame` writes, without its objects. */
const textDeltaFrame = (index: number, text: string): string =>
  `event: content_block_delta\ndata: {"type":"content_block_delta","index":${index},"delta":{"type":"text_delta","text":${
    JSON.stringify(text)
  }}}\n\n`

/** The block being written: its index among the message's blocks, and what it is. */
type Open =
  | { readonly kind: "text"; readonly index: number }
  /** `signed`: its signature came, so more thinking is a block of its own. */
  | { readonly kind: "thinking"; readonly index: number; signed: boolean }
  | { readonly kind: "tool"; readonly index: number; readonly call: number }

const characters = (content: ChatMessage["content"]): number => {
  if (typeof content === "string") return content.length
  let count = 0
  if (Array.isArray(content)) {
    for (const part of content) if (typeof part["text"] === "string") count += part["text"].length
  }
  return count
}

/**
 * The input tokens `message_start` announces when the upstream has not said yet (a chat-completions
 * upstream reports usage at the end): an estimate, a token per four characters of the messages' text
 * (contents, tool call names and arguments, thinking), never 0. `message_delta` carries the real count.
 */
export const estimateInputTokens = (call: ChatCall): number => {
  let count = 0
  for (const message of call.messages) {
    count += characters(message.content)
    for (const toolCall of message.tool_calls ?? []) {
      count += toolCall.function.name.length + toolCall.function.arguments.length
    }
    const reasoning = message["reasoning_content"]
    if (typeof reasoning === "string") count += reasoning.length
  }
  return Math.max(1, Math.ceil(count / 4))
}

export const encodeMessageStream = <E>(
  identity: Identity,
  call: ChatCall,
  { chunks, outcome }: StreamedAnswer<E>
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
    // an Anthropic upstream has said its input by its first chunk; a chat-completions one says it at the end
    const reported = usage.promptTokens > 0
    const input = reported
      ? anthropicUsage(usage)
      : { input_tokens: estimateInputTokens(call), cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }
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
        usage: {
          input_tokens: input.input_tokens,
          // what Anthropic announces at the start: a token, once any was generated
          output_tokens: Math.min(1, usage.completionTokens),
          cache_read_input_tokens: input.cache_read_input_tokens,
          cache_creation_input_tokens: input.cache_creation_input_tokens
        }
      }
    }))
  }

  const close = (out: Array<string>): void => {
    if (open === undefined) return
    out.push(frame("content_block_stop", { type: "content_block_stop", index: open.index }))
    open = undefined
  }

  /** Closes the open block and starts the next one; the first block start is followed by a ping. */
  const begin = <B extends Open>(out: Array<string>, contentBlock: object, block: (index: number) => B): B => {
    close(out)
    const index = blocks++
    out.push(frame("content_block_start", { type: "content_block_start", index, content_block: contentBlock }))
    if (!pinged) {
      pinged = true
      out.push(frame("ping", { type: "ping" }))
    }
    const next = block(index)
    open = next
    return next
  }

  const delta = (out: Array<string>, index: number, body: object): void => {
    out.push(frame("content_block_delta", { type: "content_block_delta", index, delta: body }))
  }

  /** The thinking block that takes more thinking: the open one, unless its signature closed it. */
  const thinking = (out: Array<string>) =>
    open?.kind === "thinking" && !open.signed
      ? open
      : begin(
        out,
        { type: "thinking", thinking: "", signature: "" },
        (index) => ({ kind: "thinking" as const, index, signed: false })
      )

  const toolCall = (out: Array<string>, piece: ToolCallDelta): void => {
    const current = open?.kind === "tool" && open.call === piece.index ? open : undefined
    const block = current ?? begin(
      out,
      { type: "tool_use", id: toolUseId(piece.id), name: piece.function?.name ?? "", input: {} },
      (index) => ({ kind: "tool" as const, index, call: piece.index })
    )
    // the piece that opens a call names it and starts the block; every later piece is a delta, empty ones
    // too (Anthropic's own stream starts each tool input with an empty one)
    const args = piece.function?.arguments
    if (args !== undefined && (args !== "" || current !== undefined)) {
      delta(out, block.index, { type: "input_json_delta", partial_json: args })
    }
  }

  const choice = (out: Array<string>, each: ChunkChoice, chunk: CompletionChunk): void => {
    const d = each.delta
    const reasoning = d["reasoning_content"]
    if (typeof reasoning === "string" && reasoning !== "") {
      delta(out, thinking(out).index, { type: "thinking_delta", thinking: reasoning })
    }
    const signature = d["reasoning_signature"]
    if (typeof signature === "string" && signature !== "") {
      const block = thinking(out)
      delta(out, block.index, { type: "signature_delta", signature })
      block.signed = true
    }
    const redacted = d["redacted_reasoning"]
    if (typeof redacted === "string") {
      // a redacted block comes whole, with no deltas
      begin(
        out,
        { type: "redacted_thinking", data: redacted },
        (index) => ({ kind: "thinking" as const, index, signed: true })
      )
      close(out)
    }
    const content = d.content
    if (typeof content === "string" && content !== "") {
      const block = open?.kind === "text"
        ? open
        : begin(out, { type: "text", text: "" }, (index) => ({ kind: "text" as const, index }))
      out.push(textDeltaFrame(block.index, content))
    }
    if (d.tool_calls !== undefined) { for (const piece of d.tool_calls) toolCall(out, piece) }
    if (each.finish_reason !== undefined && each.finish_reason !== null) {
      // the finishing chunk says how the answer ended (a failover's round may differ from an earlier one's)
      finish = each.finish_reason
      native = chunk.native
    }
  }

  return mapPullThen(chunks, (batch) => {
    const out: Array<string> = []
    for (const chunk of batch) {
      // a chunk without choices (the usage chunk) writes nothing
      if (chunk.choices.length === 0) continue
      if (!started) start(out)
      for (const each of chunk.choices) if (each.index === 0) choice(out, each, chunk)
    }
    return out
  }, () => {
    const out: Array<string> = []
    if (!started) start(out)
    close(out)
    const final = outcome()
    const usage = anthropicUsage(final.usage)
    out.push(frame("message_delta", {
      type: "message_delta",
      delta: stopOf(finish, native),
      usage: {
        output_tokens: usage.output_tokens,
        input_tokens: usage.input_tokens,
        cache_read_input_tokens: usage.cache_read_input_tokens,
        cache_creation_input_tokens: usage.cache_creation_input_tokens
      },
      ...gatewayFields(final)
    }))
    out.push(frame("message_stop", { type: "message_stop" }))
    return out
  })
}
