/**
 * The streamed-answer pipeline as pulls, not stream stages. A stream operator costs a channel, a scope and
 * several fibers' worth of steps per request, and the bench showed each stage of a streamed answer costing
 * as much CPU as all the JSON work of that answer: the tool loop, rendering and SSE framing therefore map
 * one `ChunkPull` to the next with a function call per pull, and only the response is a `Stream` again.
 *
 * A `ChunkPull` answers the next non-empty chunk (the array a provider read yields), fails with its error,
 * or fails with `Cause.Done` once it has ended; it must not be pulled again after that.
 */
import { Cause, Clock, Effect, Exit, Pull, Scope } from "effect"
import type { Tracer } from "effect"
import type { NonEmptyReadonlyArray } from "effect/Array"

export type ChunkPull<A, E, R = never> = Pull.Pull<NonEmptyReadonlyArray<A>, E, void, R>

/**
 * An answer to open: its pull, with every resource it holds (an upstream body) in `scope`. The scope
 * is a parameter, not the `Scope` service: providing a service copies the fiber's whole context.
 */
export type OpenPull<A, E> = (scope: Scope.Scope) => Effect.Effect<ChunkPull<A, E>, E>

/**
 * Opens a pull in a scope of its own under `parent`, closed as soon as the pull ends or fails (so an
 * upstream answer is released when its last chunk is read, not when the whole response is written), or
 * when opening fails, and with `parent` at the latest.
 */
export const openScoped = <A, E>(open: OpenPull<A, E>, parent: Scope.Scope): Effect.Effect<ChunkPull<A, E>, E> =>
  Effect.suspend(() => {
    const scope = Scope.forkUnsafe(parent)
    // Done, an error or an interruption: the answer is over either way
    const close = () => Scope.close(scope, Exit.void)
    return open(scope).pipe(
      Effect.map((pull) => Effect.tapCause(pull, close)),
      Effect.tapCause(close)
    )
  })

/**
 * Opens an answer under `parent` and pulls its first chunk now (an answer that fails before its first
 * chunk can still fail over); the pull answers that chunk first. With `shows`, chunks are pulled and
 * held until one shows the client something (or the answer ends), so a failure before that can still
 * fail over too. An answer that ended empty gives a pull already done.
 */
export const pullFirst = <A, E>(
  open: OpenPull<A, E>,
  parent: Scope.Scope,
  shows?: (chunk: A) => boolean
): Effect.Effect<ChunkPull<A, E>, E> =>
  Effect.flatMap(openScoped(open, parent), (pull) => {
    const held: Array<A> = []
    const holding = (chunk: NonEmptyReadonlyArray<A>) => shows !== undefined && !chunk.some(shows)
    const replay = (first: NonEmptyReadonlyArray<A> | undefined): ChunkPull<A, E> => {
      let pending = first
      return Effect.suspend(() => {
        if (pending === undefined) return pull
        const chunk = pending
        pending = undefined
        return Effect.succeed(chunk)
      })
    }
    const next: Effect.Effect<ChunkPull<A, E>, E | Cause.Done> = Effect.flatMap(pull, (chunk) => {
      if (holding(chunk)) {
        held.push(...chunk)
        return next
      }
      return Effect.succeed(
        replay(held.length === 0 ? chunk : [...held, ...chunk] as unknown as NonEmptyReadonlyArray<A>)
      )
    })
    // ended before showing anything: what was held, then done (a pull already done when nothing was)
    return next.pipe(Pull.catchDone(() => Effect.succeed<ChunkPull<A, E>>(pullOnce(held))))
  })

/**
 * Maps each chunk to any number of elements (a chunk that maps to none pulls the next one), then, once
 * `self` has ended, answers what `after` gives: elements to send as one last chunk, or an effect that opens
 * the pull to continue with (the next round of the tool loop). `f` runs once per chunk, in order, so it may
 * keep state; `after` runs once, after the last `f`.
 */
export const mapPullThen = <A, B, E, R, E2, R2>(
  self: ChunkPull<A, E, R>,
  f: (chunk: NonEmptyReadonlyArray<A>) => ReadonlyArray<B>,
  after: () => ReadonlyArray<B> | Effect.Effect<ChunkPull<B, E2, R2>, E2, R2>
): ChunkPull<B, E | E2, R | R2> => {
  // set once `self` has ended: the rest comes from here
  let rest: ChunkPull<B, E2, R2> | undefined
  const loop = (chunk: NonEmptyReadonlyArray<A>): ChunkPull<B, E, R> => {
    const out = f(chunk)
    return out.length > 0 ? Effect.succeed(out as NonEmptyReadonlyArray<B>) : Effect.flatMap(self, loop)
  }
  const ended = (): ChunkPull<B, E2, R2> => {
    const tail = after()
    if (Effect.isEffect(tail)) {
      return Effect.flatMap(tail, (next) => {
        rest = next
        return next
      })
    }
    rest = Cause.done()
    return tail.length > 0 ? Effect.succeed(tail as NonEmptyReadonlyArray<B>) : rest
  }
  const first = Pull.catchDone(Effect.flatMap(self, loop), ended)
  return Effect.suspend(() => rest ?? first)
}

/** A pull that answers `items` once (nothing when empty), then is done. */
export const pullOnce = <A>(items: ReadonlyArray<A>): ChunkPull<A, never> => {
  let sent = items.length === 0
  return Effect.suspend(() => {
    if (sent) return Cause.done()
    sent = true
    return Effect.succeed(items as NonEmptyReadonlyArray<A>)
  })
}

/**
 * What an answer's span does with its chunks: set on the span when the answer opens, it returns the
 * function that sees each chunk, or nothing to leave the chunks alone.
 */
export type SpanObserver<A> = (span: Tracer.Span) => ((chunk: NonEmptyReadonlyArray<A>) => void) | undefined

/**
 * `open` in a span of its own, for a real tracer: the span starts when the answer opens, is the parent
 * of the opening and of every pull, and ends when `scope` closes, failed if the answer failed. What
 * `Stream.withSpan` does for a stream, but on pulls: `Stream.withSpan` is built on
 * `Channel.acquireUseRelease`, which makes a new generator function per call, and a generator function
 * made per request keeps what the request allocated alive through young collections (see http/Pipeline.ts).
 */
export const spanPull = <A, E>(
  open: OpenPull<A, E>,
  name: string,
  { observe, ...options }: Tracer.SpanOptionsNoTrace & { readonly observe?: SpanObserver<A> | undefined }
): OpenPull<A, E> =>
(scope) =>
  Effect.flatMap(Effect.makeSpan(name, options), (span) => {
    // the scope closes with its own exit (success when the consumer is done): the answer's failure wins
    let failed: Exit.Exit<never, E> | undefined
    const noteFailure = (cause: Cause.Cause<E | Cause.Done>) =>
      Effect.sync(() => {
        if (!Pull.isDoneCause(cause)) failed = Exit.failCause(cause as Cause.Cause<E>)
      })
    const end = (exit: Exit.Exit<unknown, unknown>) =>
      Effect.map(Clock.currentTimeNanos, (now) => {
        if (span.status._tag !== "Ended") span.end(now, failed ?? exit)
      })
    const seen = observe?.(span)
    return Scope.addFinalizerExit(scope, end).pipe(
      Effect.andThen(open(scope)),
      Effect.tapCause(noteFailure),
      Effect.withParentSpan(span),
      Effect.map((pull): ChunkPull<A, E> => {
        const traced = Effect.withParentSpan(Effect.tapCause(pull, noteFailure), span)
        return seen === undefined ? traced : Effect.map(traced, (chunk) => {
          seen(chunk)
          return chunk
        })
      })
    )
  })
