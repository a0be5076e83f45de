/**
 * The pull-based stages of a streamed answer (`pullWithTools`, `renderPull`) driven from and back to
 * streams, so their tests can feed them a `Stream` and collect one. The app itself never needs a stream
 * here: it maps pull to pull (`src/chat/ChunkPull.ts`).
 */
import { Effect, type Scope, Stream } from "effect"
import type { SqlError } from "effect/sql"
import { renderPull, type ResponseIdentity } from "../../src/dialects/openai/ChatResponse.ts"
import type { ChatMessage, CompletionChunk, Usage } from "../../src/kernel/ChatWire.ts"
import { type ChunkPull, openScoped, streamPull } from "../../src/kernel/ChunkPull.ts"
import { pullWithTools, type StreamSummary } from "../../src/core/StreamToolLoop.ts"
import type { LoopSettings } from "../../src/core/ToolLoop.ts"
import type { ToolLoopError } from "../../src/core/ToolLoopError.ts"
import type { ProviderError } from "../../src/providers/ProviderError.ts"

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
  Stream.unwrap(Effect.flatMap(Effect.scope, (scope) => Effect.map(toChunkPull(self, scope), (pull) => fromChunkPull(f(pull, scope)))))

/** `renderPull` over a stream. */
export const renderChunks = <E>(
  identity: ResponseIdentity,
  includeUsage: boolean,
  chunks: Stream.Stream<CompletionChunk, E>,
  onUsage?: (usage: Usage) => void,
  trailer?: () => Record<string, unknown>,
  onChunk?: (chunk: CompletionChunk) => void
): Stream.Stream<object, E> =>
  viaChunkPull(chunks, (pull) => renderPull(identity, includeUsage, pull, onUsage, trailer, onChunk))

/** `pullWithTools` over streams: each round's stream runs in a scope of its own, closed when it ends. */
export const streamWithTools = (
  settings: LoopSettings,
  messages: ReadonlyArray<ChatMessage>,
  firstRound: Stream.Stream<CompletionChunk, ProviderError>,
  openRound: (messages: ReadonlyArray<ChatMessage>) => Stream.Stream<CompletionChunk, ProviderError>,
  summary: StreamSummary
): Stream.Stream<CompletionChunk, ProviderError | ToolLoopError | SqlError.SqlError> =>
  viaChunkPull(firstRound, (first, scope) =>
    pullWithTools(settings, messages, first, (history) => toChunkPull(openRound(history), scope), summary))
