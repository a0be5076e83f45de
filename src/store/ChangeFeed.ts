/**
 * Admin changes that cached state depends on (a key revoked or edited, an org's settings or shared
 * tools changed), told to every gateway instance on the same store at once rather than after their
 * caches' TTL. On PostgreSQL it is `NOTIFY` on one channel, heard by each instance's `LISTEN`
 * connection; the embedded store has one instance only, so a change is told to it alone.
 *
 * A change is `key:<key_id>` or `org:<org_id>`. Listeners run on the instance that made the change too.
 * Should the listening connection drop, it is opened again; changes sent while it was down are missed,
 * and caches catch up within their TTL as before.
 */
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Option, Queue, Schedule } from "effect"

export type Change = `key:${string}` | `org:${string}` | `mcp:${string}`

const CHANNEL = "svc_gateway_changes"

export class ChangeFeed extends Context.Service<ChangeFeed, {
  /** Tells every instance (this one included); never fails the admin action that made the change. */
  readonly publish: (change: Change) => Effect.Effect<void>
  /** Calls `listener` with each change, from this instance or another. */
  readonly listen: (listener: (change: Change) => void) => void
}>()("svc-gateway/ChangeFeed") {
  /** Within this process only (the embedded store, tests). */
  static readonly layerLocal = Layer.sync(ChangeFeed, () => {
    const listeners: Array<(change: Change) => void> = []
    return ChangeFeed.of({
      publish: (change) => Effect.sync(() => listeners.forEach((listener) => listener(change))),
      listen: (listener) => void listeners.push(listener)
    })
  })

  /** Over PostgreSQL's LISTEN/NOTIFY when the store is PostgreSQL, else within this process. */
  static readonly layer = Layer.unwrap(Effect.gen(function*() {
    const pg = yield* Effect.serviceOption(PgClient.PgClient)
    if (Option.isNone(pg)) return ChangeFeed.layerLocal
    const client = pg.value
    return Layer.effect(
      ChangeFeed,
      Effect.gen(function*() {
        const listeners: Array<(change: Change) => void> = []
        const deliver = (payload: string) => {
          if (!payload.startsWith("key:") && !payload.startsWith("org:")) return
          for (const listener of listeners) listener(payload as Change)
        }
        const receive = Effect.scoped(Effect.gen(function*() {
          const queue = yield* client.listen(CHANNEL)
          return yield* Effect.forever(Effect.map(Queue.take(queue), (notification) => deliver(notification.payload)))
        }))
        yield* receive.pipe(
          Effect.tapCause((cause) =>
            Effect.logWarning("change feed: listening connection lost; listening again", cause)
          ),
          Effect.retry(Schedule.spaced("1 second")),
          Effect.forkScoped({ startImmediately: true })
        )
        return ChangeFeed.of({
          publish: (change) =>
            client.notify(CHANNEL, change).pipe(
              // this instance hears it through LISTEN too; told here at once so its own answers never lag
              Effect.tap(() => Effect.sync(() => deliver(change))),
              Effect.catch((error) =>
                Effect.andThen(
                  Effect.sync(() => deliver(change)),
                  Effect.logWarning("change feed: NOTIFY failed; other instances catch up within the cache TTL", {
                    error: error.message
                  })
                )
              )
            ),
          listen: (listener) => void listeners.push(listener)
        })
      })
    )
  }))
}
