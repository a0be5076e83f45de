/**
 * The pull-based stages of a streamed answer (`pullWithTools`, `renderPull`) driven from and back to
 * streams, so their tests can feed them a `Stream` and collect one. The app itself never needs a stream
 * here: it maps pull to pull (`src/chat/ChunkPull.ts`).
 */
import { Channel, Effect, type Scope, Stream } from "effect"
import type { SqlError } from "effect/sql"
import { type LoopProgress, pullWithTools } from "../../src/core/StreamToolLoop.ts"
import type { LoopSettings } from "../../src/core/ToolLoop.ts"
import type { ToolLoopError } from "../../src/core/ToolLoopError.ts"
import { renderPull, type ResponseIdentity } from "../../src/dialects/openai/ChatResponse.ts"
import type { ChatMessage, CompletionChunk, Usage } from "../../src/kernel/Canonical.ts"
import { type ChunkPull, type OpenPull, openScoped } from "../../src/kernel/ChunkPull.ts"
import type { Provider, ProviderCall } from "../../src/providers/Provider.ts"
import type { ProviderError } from "../../src/providers/ProviderError.ts"

/** The stream's pull, its resources in the given scope. */
export const streamPull = <A, E>(self: Stream.Stream<A, E>): OpenPull<A, E> => (scope) =>
  Channel.toPullScoped(Stream.toChannel(self), scope)

/** A stream of what `open` answers, its resources in the stream's scope: the way back from pulls. */
export const streamOf = <A, E>(open: OpenPull<A, E>): Stream.Stream<A, E> =>
  Stream.fromChannel(Channel.fromTransform((_, scope) => open(scope)))

/** The pull as a stream. */
export const fromChunkPull = <A, E, R>(pull: ChunkPull<A, E, R>): Stream.Stream<A, E, R> =>
  Stream.fromPull(Effect.succeed(pull))

/** `self` as a pull in a scope of its own under `parent` (see `openScoped`). */
const toChunkPull = <A, E>(self: Stream.Stream<A, E>, parent: Scope.Scope): Effect.Effect<ChunkPull<A, E>, E> =>
  openScoped(streamPull(self), parent)

/** A stream as a pull in a scope of its own, through `f`, as a stream again. */
const viaChunkPull = <A, E, B, E2, R2>(
  self: Stream.Stream<A, E>,
  f: (pull: ChunkPull<A, E>, scope: Scope.Scope) => ChunkPull<B, E2, R2>
): Stream.Stream<B, E | E2, R2> =>
  Stream.unwrap(
    Effect.flatMap(
      Effect.scope,
      (scope) => Effect.map(toChunkPull(self, scope), (pull) => fromChunkPull(f(pull, scope)))
    )
  )

/** `renderPull` over a stream. */
export const renderChunks = <E>(
  identity: ResponseIdentity,
  includeUsage: boolean,
  chunks: Stream.Stream<CompletionChunk, E>,
  onUsage?: (usage: Usage) => void,
  trailer?: () => Record<string, unknown>
): Stream.Stream<object, E> =>
  viaChunkPull(chunks, (pull) => renderPull(pull, { identity, includeUsage, onUsage, trailer }))

/**
 * `pullWithTools` over streams: each round's stream runs in a scope of its own, closed when it ends.
 * `progress()` is the loop's once the stream has started.
 */
export const streamWithTools = (
  settings: LoopSettings,
  messages: ReadonlyArray<ChatMessage>,
  firstRound: Stream.Stream<CompletionChunk, ProviderError>,
  openRound: (messages: ReadonlyArray<ChatMessage>) => Stream.Stream<CompletionChunk, ProviderError>
): {
  readonly chunks: Stream.Stream<CompletionChunk, ProviderError | ToolLoopError | SqlError.SqlError>
  readonly progress: () => LoopProgress
} => {
  let progress: (() => LoopProgress) | undefined
  const chunks = viaChunkPull(firstRound, (first, scope) => {
    const loop = pullWithTools(settings, {
      messages,
      first: { pull: first, attempts: 1 },
      openRound: (history) => Effect.map(toChunkPull(openRound(history), scope), (pull) => ({ pull, attempts: 1 }))
    })
    progress = loop.progress
    return loop.chunks
  })
  return {
    chunks,
    progress: () => {
      if (progress === undefined) throw new Error("the loop has not started")
      return progress()
    }
  }
}

/** A provider's streamed answer as a stream, its resources in the stream's scope. */
export const providerStream = (provider: Provider, call: ProviderCall): Stream.Stream<CompletionChunk, ProviderError> =>
  streamOf((scope) => provider.open(call, scope))
