/**
 * Authenticates API-key callers. Lookups are cached for `GATEWAY_KEY_CACHE_TTL` (default 5 s) so the
 * hot path rarely touches the store; `forget` drops a key at once on this instance (revocation, edits),
 * and other instances at once through the store's change feed (`ChangeFeed`), or when their cached
 * entry expires should a change be missed.
 *
 * A store outage is not an API outage: when a lookup fails, a key seen within `GATEWAY_KEY_STALE_MAX`
 * (default 10 minutes) is answered from its last known state (a revocation or expiry known then still
 * refuses it), and the store is asked again about that key at most once a second, so requests do not
 * queue behind a store that is down (`StaleCache`). A key never seen gets the store's error (503).
 *
 * The cache is keyed by the key as sent, so a known key costs a map lookup: hashing it for the store
 * (SHA-256, one native call) cost more than the rest of authentication. Keys are hashed at rest; in
 * memory each request carries its key anyway, and the cache only keeps those seen recently.
 */
import { Context, Effect, Layer } from "effect"
import type { SqlError } from "effect/sql"
import { GatewayConfig } from "../Config.ts"
import type { Caller } from "../kernel/Caller.ts"
import { hasLimits } from "../kernel/Limits.ts"
import { makeStaleCache } from "../kernel/StaleCache.ts"
import { ApiKeys, type KeyRecord } from "../keys/ApiKeys.ts"
import { hashSecret } from "../keys/ApiKeySecret.ts"
import { ChangeFeed } from "../store/ChangeFeed.ts"
import { hotSpan } from "../Tracing.ts"
import { AuthError, ExpiredKey, InvalidKey, MissingKey, RevokedKey } from "./AuthError.ts"

/** A key lookup as cached: the record (undefined for an unknown key) and the caller it makes. */
interface Entry {
  readonly record: KeyRecord | undefined
  readonly caller: Caller | undefined
}

/** Bounds memory when many unknown keys are tried; the cache is simply cleared past it. */
const MAX_CACHED = 50_000

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export const bearerToken = (header: string | undefined): string | undefined => {
  if (header === undefined) return undefined
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
  return match?.[1]
}

export class Auth extends Context.Service<Auth, {
  /** The caller of an `Authorization: Bearer <key>` header. */
  readonly authenticate: (authorization: string | undefined) => Effect.Effect<Caller, AuthError | SqlError.SqlError>
  /** The caller of an API key however the client sent it (`x-api-key`, a bearer token). */
  readonly authenticateKey: (key: string | undefined) => Effect.Effect<Caller, AuthError | SqlError.SqlError>
  readonly forget: (keyId: string) => void
}>()("svc-gateway/Auth") {
  static readonly layer = Layer.effect(
    Auth,
    Effect.gen(function*() {
      const keys = yield* ApiKeys
      const config = yield* GatewayConfig
      // a cached entry holds the answer ready: a known key costs a map lookup, no fiber steps
      const cache = yield* makeStaleCache<string, Entry>({
        ttl: config.keyCacheTtl,
        staleMax: config.keyStaleMax,
        maxEntries: MAX_CACHED
      })

      const fail = (reason: AuthError["reason"]) => Effect.fail(new AuthError({ reason }))

      const entryFor = (record: KeyRecord | undefined): Entry => ({
        record,
        caller: record === undefined ? undefined : {
          keyId: record.id,
          keyName: record.name,
          orgId: record.orgId,
          allowedSvcToolIds: record.allowedSvcToolIds,
          logContent: record.logContent,
          compression: record.compression,
          ...(hasLimits(record.limits.key) || hasLimits(record.limits.org) ? { limits: record.limits } : {}),
          ...(record.alertThresholds === null ? {} : { alertThresholds: record.alertThresholds })
        }
      })

      const answer = (entry: Entry): Effect.Effect<Caller, AuthError> => {
        const { caller, record } = entry
        if (record === undefined || caller === undefined) return fail(new InvalidKey())
        const owner = { keyId: record.id, orgId: record.orgId }
        if (record.revokedAt !== null) return fail(new RevokedKey(owner))
        if (record.expiresAt !== null && record.expiresAt.getTime() <= cache.now()) {
          return fail(new ExpiredKey({ expiredAt: record.expiresAt.toISOString(), ...owner }))
        }
        keys.markUsed(record.id)
        return Effect.succeed(caller)
      }

      /** Answered from the key's last known state while the store cannot be asked (a revocation known then still refuses it). */
      const warnStale = (entry: Entry, ageMs: number) =>
        Effect.logWarning("key store unavailable: answering from the key's last known state", {
          key_id: entry.record?.id ?? null,
          seen_seconds_ago: Math.round(ageMs / 1000)
        })

      const lookup = (key: string): Effect.Effect<Caller, AuthError | SqlError.SqlError> => {
        const hit = cache.fresh(key)
        if (hit !== undefined) return answer(hit)
        return Effect.flatMap(
          cache.load(key, Effect.map(keys.findByHash(hashSecret(key)), entryFor), warnStale),
          answer
        )
      }

      const span = hotSpan("Auth.authenticate")
      // lazy like any effect: the key is checked (and its use noted) when the effect runs
      const authenticateKey = (key: string | undefined) =>
        span(Effect.suspend(() => key === undefined || key === "" ? fail(new MissingKey()) : lookup(key)))
      const authenticate = (authorization: string | undefined) => authenticateKey(bearerToken(authorization))

      const forget = (keyId: string) => cache.deleteWhere((entry) => entry.record?.id === keyId) // a key or an org changed here or on another instance: its keys are read again on their next use
      ;(yield* ChangeFeed).listen((change) => {
        const id = change.slice(4)
        if (change.startsWith("key:")) forget(id)
        else if (change.startsWith("org:")) cache.deleteWhere((entry) => entry.record?.orgId === id)
      })

      return Auth.of({ authenticate, authenticateKey, forget })
    })
  )
}
