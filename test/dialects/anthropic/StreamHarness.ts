/**
 * Drives the Messages dialect's stream encoder the way the pipeline does: a pull that answers the given
 * batches of chunks one per pull, and an `outcome()` that knows what was reported by the first chunk
 * until the chunks have ended, and the final outcome after. Answers the elements the encoder wrote
 * (each one or more whole frames) and those elements cut into single frames.
 */
import { Cause, Effect, Stream } from "effect"
import type { NonEmptyReadonlyArray } from "effect/Array"
import type { Identity } from "../../../src/core/Dialect.ts"
import type { Outcome } from "../../../src/core/Outcome.ts"
import { encodeMessageStream } from "../../../src/dialects/anthropic/MessagesStream.ts"
import { type CompletionChunk, emptyUsage, type Usage } from "../../../src/kernel/Canonical.ts"
import type { ChatCall } from "../../../src/kernel/ChatCall.ts"
import type { ChunkPull } from "../../../src/kernel/ChunkPull.ts"
import { fromChunkPull } from "../../utils/PullStreams.ts"

export const outcomeOf = (usage: Usage, more: Partial<Outcome> = {}): Outcome => ({
  usage,
  attempts: 1,
  rounds: 1,
  toolRuns: [],
  svcPendingId: undefined,
  provider: "test",
  model: "test-model",
  dropped: [],
  cost: null,
  ...more
})

/** A call for the stream's estimate: its messages are all the encoder reads of it. */
export const callWith = (messages: ChatCall["messages"]): ChatCall => ({
  model: "claude-opus-4-6",
  messages,
  maxTokens: 1024,
  stream: true,
  includeUsage: true,
  streamOptions: {},
  tools: undefined,
  toolChoice: undefined,
  svcToolIds: [],
  svcPendingId: undefined,
  tags: [],
  passthrough: {}
})

const isBatch = (item: CompletionChunk | ReadonlyArray<CompletionChunk>): item is ReadonlyArray<CompletionChunk> =>
  Array.isArray(item)

export interface Encoded {
  /** What each pull of the encoder answered, flattened: each element one or more frames. */
  readonly elements: ReadonlyArray<string>
  readonly frames: ReadonlyArray<string>
}

/** Every frame of `text`, each with its blank line. */
export const splitFrames = (text: string): Array<string> => text.split(/(?<=\n\n)/).filter((frame) => frame !== "")

export const encode = (options: {
  readonly identity: Identity
  readonly call?: ChatCall
  /** Chunks pulled one batch per pull; a flat list is one chunk per pull. */
  readonly batches: ReadonlyArray<CompletionChunk | ReadonlyArray<CompletionChunk>>
  readonly start?: Outcome
  readonly final: Outcome
}): Effect.Effect<Encoded> =>
  Effect.gen(function*() {
    let next = 0
    let ended = false
    const pull: ChunkPull<CompletionChunk, never> = Effect.suspend(() => {
      const batch = options.batches[next++]
      if (batch === undefined) {
        ended = true
        return Cause.done()
      }
      const chunks: ReadonlyArray<CompletionChunk> = isBatch(batch) ? batch : [batch]
      return Effect.succeed(chunks as NonEmptyReadonlyArray<CompletionChunk>)
    })
    const start = options.start ?? outcomeOf(emptyUsage)
    const outcome = () => (ended ? options.final : start)
    const call = options.call ?? callWith([{ role: "user", content: "hi" }])
    const elements = yield* Stream.runCollect(
      fromChunkPull(encodeMessageStream(options.identity, call, { chunks: pull, outcome }))
    )
    return { elements, frames: splitFrames(elements.join("")) }
  })

/** The event names and the data of each frame, for assertions on structure. */
export const events = (
  frames: ReadonlyArray<string>
): Array<{ readonly event: string; readonly data: Record<string, unknown> }> =>
  frames.map((frame) => {
    const match = /^event: (\S+)\ndata: (.*)\n\n$/s.exec(frame)
    if (match === null) throw new Error(`not an SSE frame: ${JSON.stringify(frame)}`)
    return { event: match[1]!, data: JSON.parse(match[2]!) as Record<string, unknown> }
  })
