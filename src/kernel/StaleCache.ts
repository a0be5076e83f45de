/**
 * A cache for what every request reads and the store rarely changes (API keys, an org's shared-tool
 * settings). An entry is fresh for `ttl`; when a load fails (the store is down), an entry seen within
 * `staleMax` is answered as last seen, and the store is asked about it again at most once per `retry`,
 * so requests do not queue behind a store that is down. A change dropped with `delete` or
 * `deleteWhere` while a load was on its way keeps that load's (older) answer out of the cache.
 *
 * Time is Effect's `Clock`, taken when the cache is made, so tests move it with `TestClock`; reading it
 * is a call, not an effect, so a fresh hit costs a map lookup and no fiber step.
 */
import { Clock, Duration, Effect } from "effect"

export interface StaleCacheOptions {
  readonly ttl: Duration.Input
  readonly staleMax: Duration.Input
  /** While loads fail, how often one entry is loaded again instead of answered stale (default 1 s). */
  readonly retry?: Duration.Input
  /** Bounds memory (many unknown keys tried): past it the cache is simply cleared. */
  readonly maxEntries?: number
}

export interface StaleCache<K, V> {
  /** The value while fresh; undefined when absent or due for a load. */
  readonly fresh: (key: K) => V | undefined
  /**
   * Runs `load` and caches its value. When it fails, the last value seen within `staleMax` instead
   * (after `onStale` with its age), else the failure.
   */
  readonly load: <E, R>(
    key: K,
    load: Effect.Effect<V, E, R>,
    onStale?: (value: V, ageMs: number) => Effect.Effect<void>
  ) => Effect.Effect<V, E, R>
  readonly delete: (key: K) => void
  readonly deleteWhere: (predicate: (value: V) => boolean) => void
  /** Now, on the cache's clock (an expiry checked against the same time as the entries). */
  readonly now: () => number
}

interface Entry<V> {
  readonly value: V
  /** Fresh until then. */
  readonly until: number
  /** When the store last gave this value: stale answers are bounded from here. */
  readonly seenAt: number
}

export const makeStaleCache = <K, V>(options: StaleCacheOptions): Effect.Effect<StaleCache<K, V>> =>
  Effect.gen(function*() {
    const clock = yield* Clock.Clock
    const ttlMs = Duration.toMillis(options.ttl)
    const staleMs = Duration.toMillis(options.staleMax)
    const retryMs = Duration.toMillis(options.retry ?? Duration.seconds(1))
    const maxEntries = options.maxEntries ?? Infinity
    const entries = new Map<K, Entry<V>>()
    const now = () => clock.currentTimeMillisUnsafe()
    // bumped by every drop: a load that overlapped one does not cache what it read
    let generation = 0

    const fresh = (key: K): V | undefined => {
      const hit = entries.get(key)
      return hit !== undefined && hit.until > now() ? hit.value : undefined
    }

    const load = <E, R>(
      key: K,
      effect: Effect.Effect<V, E, R>,
      onStale?: (value: V, ageMs: number) => Effect.Effect<void>
    ): Effect.Effect<V, E, R> =>
      Effect.suspend(() => {
        const started = generation
        return Effect.matchEffect(effect, {
          onSuccess: (value) => {
            if (started === generation) {
              if (entries.size >= maxEntries) entries.clear()
              const at = now()
              entries.set(key, { value, until: at + ttlMs, seenAt: at })
            }
            return Effect.succeed(value)
          },
          onFailure: (error) => {
            const at = now()
            // read now, not before the load: a key dropped meanwhile has no last known state to answer
            const hit = entries.get(key)
            if (hit === undefined || at - hit.seenAt > staleMs) return Effect.fail(error)
            entries.set(key, { ...hit, until: at + retryMs })
            return onStale === undefined
              ? Effect.succeed(hit.value)
              : Effect.as(onStale(hit.value, at - hit.seenAt), hit.value)
          }
        })
      })

    const drop = (key: K) => {
      generation++
      entries.delete(key)
    }

    const deleteWhere = (predicate: (value: V) => boolean) => {
      generation++
      for (const [key, entry] of entries) if (predicate(entry.value)) entries.delete(key)
    }

    return { fresh, load, delete: drop, deleteWhere, now } satisfies StaleCache<K, V>
  })
