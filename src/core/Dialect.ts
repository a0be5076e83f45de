/**
 * The contract of an inbound wire format. A dialect is pure codecs: it reads the client's key and request
 * into the gateway's `ChatCall`, and writes answers, stream events and errors back in the client's own
 * shape. Everything between (auth, tags, shared tools, failover, the log row, metrics, spans) is the one
 * pipeline's (`http/Pipeline.ts`), the same for every dialect. See docs/architecture.md.
 */
import type { Effect } from "effect"
import type { CompletionChunk } from "../kernel/Canonical.ts"
import type { ChatCall } from "../kernel/ChatCall.ts"
import type { ChunkPull } from "../kernel/ChunkPull.ts"
import type { RequestError } from "../kernel/RequestError.ts"
import type { Outcome, WholeAnswer } from "./Outcome.ts"
import type { Problem } from "./Problem.ts"

/** Request headers, names in lower case (as Node gives them). */
export type Headers = Readonly<Record<string, string | undefined>>

/** What every answer to one request shares: its id, its creation time, the model as addressed. */
export interface Identity {
  readonly id: string
  /** Unix seconds. */
  readonly created: number
  /** The model as the client addressed it. */
  readonly model: string
}

/** A streamed answer as the core gives it: its chunks, and what it came to once they have ended. */
export interface StreamedAnswer<E> {
  readonly chunks: ChunkPull<CompletionChunk, E>
  readonly outcome: () => Outcome
}

export interface Dialect {
  /** For logs and tests, e.g. `openai-chat`, `anthropic-messages`. */
  readonly name: string
  /** The API key the client sent, from this format's header. */
  readonly apiKey: (headers: Headers) => string | undefined
  /** The request body (JSON, already parsed) as the gateway's call; a 400 naming the field otherwise. */
  readonly decode: (json: unknown, headers: Headers) => Effect.Effect<ChatCall, RequestError>
  /** A new answer's identity, in this format's id shape. */
  readonly identity: (call: ChatCall) => Identity
  /** A whole answer's JSON body. */
  readonly encodeAnswer: (identity: Identity, call: ChatCall, answer: WholeAnswer) => unknown
  /**
   * A streamed answer as server-sent events, each element one or more whole frames of text (event name,
   * data, blank line), the format's terminator included after the last chunk. `outcome()` is complete
   * once `chunks` has ended. Runs once per chunk: plain code, no effects.
   */
  readonly encodeStream: <E>(identity: Identity, call: ChatCall, answer: StreamedAnswer<E>) => ChunkPull<string, E>
  /** The frame that ends a stream that failed after it began (the answer's `identity`): never a normal end. */
  readonly streamError: (problem: Problem, identity: Identity) => string
  /** A refused or failed request's status and body. */
  readonly errorBody: (problem: Problem) => { readonly status: number; readonly body: unknown }
}
