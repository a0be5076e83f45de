/**
 * The core's stream as the Responses API's server-sent events, in OpenAI's order, each with its
 * `sequence_number`: `response.created` and `response.in_progress` at the first chunk; per output item
 * `response.output_item.added`, its parts and deltas (`response.reasoning_summary_part.added` /
 * `response.reasoning_summary_text.delta`, `response.content_part.added` / `response.output_text.delta`,
 * `response.function_call_arguments.delta`), their `.done` events and `response.output_item.done` with the
 * whole item once the next item starts or the answer ends; then `response.completed` (or
 * `response.incomplete`) with the whole response and its usage. A reasoning item ends when its signature
 * (`encrypted_content`) comes. A state machine over the chunks, in plain code per chunk.
 */
import type { Identity, StreamedAnswer } from "../../core/Dialect.ts"
import type { Problem } from "../../core/Problem.ts"
import { randomBase62 } from "../../Ids.ts"
import type { ChunkChoice, ToolCallDelta } from "../../kernel/Canonical.ts"
import type { ChatCall } from "../../kernel/ChatCall.ts"
import { type ChunkPull, mapPullThen } from "../../kernel/ChunkPull.ts"
import {
  functionCallItem,
  gatewayFields,
  itemId,
  messageItem,
  outputText,
  reasoningItem,
  responseObject,
  statusOf
} from "./ResponsesAnswer.ts"

type Json = Record<string, unknown>

/** The output item being written. */
interface TextItem {
  readonly kind: "message" | "reasoning"
  readonly index: number
  readonly id: string
  text: string
}
interface CallItem {
  readonly kind: "call"
  readonly index: number
  readonly id: string
  /** The tool call's index among the chunks' tool-call deltas. */
  readonly call: number
  readonly callId: string
  readonly name: string
  args: string
}
type Open = TextItem | CallItem

export const encodeResponseStream = <E>(
  identity: Identity,
  call: ChatCall,
  { chunks, outcome }: StreamedAnswer<E>
): ChunkPull<string, E> => {
  let sequence = 0
  let started = false
  let open: Open | undefined
  let finish: string | null = null
  const output: Array<Json> = []

  const frame = (type: string, data: Json): string =>
    `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`

  /** A text delta's frame, nearly every event of a stream, written without building its object. */
  const textDelta = (item: TextItem, delta: string): string =>
    `event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":${sequence++},"item_id":"${item.id}","output_index":${item.index},"content_index":0,"delta":${
      JSON.stringify(delta)
    },"logprobs":[]}\n\n`

  /** The two events that open the stream carry the same response, written once. */
  const start = (out: Array<string>): void => {
    started = true
    const response = JSON.stringify(
      responseObject(identity, call, { status: "in_progress", incompleteDetails: null, output: [], usage: undefined })
    )
    for (const type of ["response.created", "response.in_progress"]) {
      out.push(`event: ${type}\ndata: {"type":"${type}","sequence_number":${sequence++},"response":${response}}\n\n`)
    }
  }

  const close = (out: Array<string>, encrypted?: string): void => {
    const item = open
    if (item === undefined) return
    open = undefined
    const at = { item_id: item.id, output_index: item.index }
    let whole: Json
    switch (item.kind) {
      case "message": {
        out.push(frame("response.output_text.done", { ...at, content_index: 0, text: item.text, logprobs: [] }))
        out.push(frame("response.content_part.done", { ...at, content_index: 0, part: outputText(item.text) }))
        whole = messageItem(item.id, item.text, undefined)
        break
      }
      case "reasoning": {
        if (item.text !== "") {
          const part = { type: "summary_text", text: item.text }
          out.push(frame("response.reasoning_summary_text.done", { ...at, summary_index: 0, text: item.text }))
          out.push(frame("response.reasoning_summary_part.done", { ...at, summary_index: 0, part }))
        }
        whole = reasoningItem(item.id, item.text, encrypted)
        break
      }
      case "call": {
        out.push(frame("response.function_call_arguments.done", { ...at, name: item.name, arguments: item.args }))
        whole = functionCallItem(item)
        break
      }
    }
    output.push(whole)
    out.push(frame("response.output_item.done", { output_index: item.index, item: whole }))
  }

  /** Closes the open item, then opens the one `make` builds at the next output index. */
  const begin = <O extends Open>(out: Array<string>, make: (index: number) => O, added: (item: O) => Json): O => {
    close(out)
    const item = make(output.length)
    open = item
    out.push(frame("response.output_item.added", { output_index: item.index, item: added(item) }))
    return item
  }

  const reasoning = (out: Array<string>): TextItem => {
    if (open?.kind === "reasoning") return open
    return begin<TextItem>(
      out,
      (index) => ({ kind: "reasoning", index, id: itemId("rs"), text: "" }),
      (item) => ({ id: item.id, type: "reasoning", summary: [] })
    )
  }

  const message = (out: Array<string>): TextItem => {
    if (open?.kind === "message") return open
    const item = begin<TextItem>(
      out,
      (index) => ({ kind: "message", index, id: itemId("msg"), text: "" }),
      (item) => ({ id: item.id, type: "message", status: "in_progress", role: "assistant", content: [] })
    )
    out.push(
      frame("response.content_part.added", {
        item_id: item.id,
        output_index: item.index,
        content_index: 0,
        part: outputText("")
      })
    )
    return item
  }

  const toolCall = (out: Array<string>, piece: ToolCallDelta): void => {
    let item = open?.kind === "call" && open.call === piece.index ? open : undefined
    if (item === undefined) {
      const callId = piece.id === undefined || piece.id === "" ? `call_${randomBase62(24)}` : piece.id
      const name = piece.function?.name ?? ""
      item = begin<CallItem>(
        out,
        (index) => ({ kind: "call", index, id: itemId("fc"), call: piece.index, callId, name, args: "" }),
        (opened) => functionCallItem({ id: opened.id, callId, name, args: "", status: "in_progress" })
      )
    }
    const args = piece.function?.arguments
    if (args !== undefined && args !== "") {
      item.args += args
      out.push(
        frame("response.function_call_arguments.delta", { item_id: item.id, output_index: item.index, delta: args })
      )
    }
  }

  const choice = (out: Array<string>, each: ChunkChoice): void => {
    const d = each.delta
    const thinking = d["reasoning_content"]
    if (typeof thinking === "string" && thinking !== "") {
      const item = reasoning(out)
      if (item.text === "") {
        out.push(frame("response.reasoning_summary_part.added", {
          item_id: item.id,
          output_index: item.index,
          summary_index: 0,
          part: { type: "summary_text", text: "" }
        }))
      }
      item.text += thinking
      out.push(
        frame("response.reasoning_summary_text.delta", {
          item_id: item.id,
          output_index: item.index,
          summary_index: 0,
          delta: thinking
        })
      )
    }
    const signature = d["reasoning_signature"]
    if (typeof signature === "string" && signature !== "") {
      // the signature closes its thinking: the reasoning item is whole
      reasoning(out)
      close(out, signature)
    }
    const content = d.content
    if (typeof content === "string" && content !== "") {
      const item = message(out)
      item.text += content
      out.push(textDelta(item, content))
    }
    if (d.tool_calls !== undefined) { for (const piece of d.tool_calls) toolCall(out, piece) }
    if (each.finish_reason !== undefined && each.finish_reason !== null) finish = each.finish_reason
  }

  return mapPullThen(chunks, (batch) => {
    const out: Array<string> = []
    for (const chunk of batch) {
      if (chunk.choices.length === 0) continue
      if (!started) start(out)
      for (const each of chunk.choices) if (each.index === 0) choice(out, each)
    }
    return out
  }, () => {
    const out: Array<string> = []
    if (!started) start(out)
    close(out)
    const final = outcome()
    const { incomplete_details, status } = statusOf(finish)
    const response = responseObject(identity, call, {
      status,
      incompleteDetails: incomplete_details,
      output,
      usage: final.usage,
      extra: gatewayFields(final)
    })
    out.push(frame(status === "completed" ? "response.completed" : "response.incomplete", { response }))
    return out
  })
}

/**
 * The event that ends a stream that failed after it began: `response.failed`, with the error's code and
 * message on the response (what Codex and the SDKs read).
 */
export const responsesStreamError = (problem: Problem, identity: Identity): string =>
  `event: response.failed\ndata: ${
    JSON.stringify({
      type: "response.failed",
      response: {
        id: identity.id,
        object: "response",
        created_at: identity.created,
        status: "failed",
        error: { code: problem.code ?? problem.type, message: problem.message },
        incomplete_details: null,
        model: identity.model,
        output: [],
        usage: null
      }
    })
  }\n\n`
