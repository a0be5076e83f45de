/**
 * Authenticates API-key callers. Lookups are cached for `GATEWAY_KEY_CACHE_TTL` (default 5 s) so the
 * hot path rarely touches the store; `forget` drops a key at once on this instance (revocation, edits),
 * and other instances at once through the store's change feed (`ChangeFeed`), or when their cached
 * entry expires should a change be missed.
 *
 * A store outage is not an API outage: when a lookup fails, a key seen within `GATEWAY_KEY_STALE_MAX`
 * (default 10 minutes) is answered from its last known state (a revocation or expiry known then still
 * refuses it), and the store is asked again about that key at most once per `STALE_RETRY_MS`, so
 * requests do not queue behind a store that is down. A key never seen gets the store's error (503).
 *
 * The cache is keyed by the key as sent, so a known key costs a map lookup: hashing it for the store
 * (SHA-256, one native call) cost more than the rest of authentication. Keys are hashed at rest; in
 * memory each request carries its key anyway, and the cache only keeps those seen recently.
 */
import { Context, Duration, Effect, Layer } from "effect"
import type { SqlError } from "effect/sql"
import { GatewayConfig } from "../Config.ts"
import { hashSecret } from "../keys/ApiKeySecret.ts"
import { ApiKeys, type KeyRecord } from "../keys/ApiKeys.ts"
import { hotSpan } from "../Tracing.ts"
import type { Caller } from "../kernel/Caller.ts"
import { hasLimits } from "../kernel/Limits.ts"
import { ChangeFeed } from "../store/ChangeFeed.ts"
import { AuthError, ExpiredKey, InvalidKey, MissingKey, RevokedKey } from "./AuthError.ts"


/** A key lookup as cached: the record (undefined for an unknown key) and the caller it makes. */
interface Entry {
  readonly record: KeyRecord | undefined
  readonly caller: Caller | undefined
  /** Fresh until then; stale but usable in an outage until `seenAt` + the stale limit. */
  readonly until: number
  readonly seenAt: number
}

/** While the store is down, how often one key's lookup is tried again instead of its stale answer. */
const STALE_RETRY_MS = 1_000

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
  static readonly layer = Layer.effect(Auth, Effect.gen(function*() {
    const keys = yield* ApiKeys
    const config = yield* GatewayConfig
    const ttlMs = Duration.toMillis(config.keyCacheTtl)
    const staleMs = Duration.toMillis(config.keyStaleMax)
    // a cached entry holds the answer ready: a known key costs a map lookup, no fiber steps
    const cache = new Map<string, Entry>()

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
        ...(hasLimits(record.limits.key) || hasLimits(record.limits.org) ? { limits: record.limits } : {})
      },
      until: Date.now() + ttlMs,
      seenAt: Date.now()
    })

    const answer = (entry: Entry): Effect.Effect<Caller, AuthError> => {
      const { caller, record } = entry
      if (record === undefined || caller === undefined) return fail(new InvalidKey())
      const owner = { keyId: record.id, orgId: record.orgId }
      if (record.revokedAt !== null) return fail(new RevokedKey(owner))
      if (record.expiresAt !== null && record.expiresAt.getTime() <= Date.now()) {
        return fail(new ExpiredKey({ expiredAt: record.expiresAt.toISOString(), ...owner }))
      }
      keys.markUsed(record.id)
      return Effect.succeed(caller)
    }

    /** The last known state of a key the store cannot be asked about now, while it is recent enough. */
    const stale = (key: string, hit: Entry | undefined, error: SqlError.SqlError): Effect.Effect<Caller, AuthError | SqlError.SqlError> => {
      const now = Date.now()
      if (hit === undefined || now - hit.seenAt > staleMs) return Effect.fail(error)
      cache.set(key, { ...hit, until: now + STALE_RETRY_MS })
      return Effect.andThen(
        Effect.logWarning("key store unavailable: answering from the key's last known state", {
          key_id: hit.record?.id ?? null,
          seen_seconds_ago: Math.round((now - hit.seenAt) / 1000)
        }),
        answer(hit)
      )
    }

    const lookup = (key: string): Effect.Effect<Caller, AuthError | SqlError.SqlError> => {
      const hit = cache.get(key)
      if (hit !== undefined && hit.until > Date.now()) return answer(hit)
      return Effect.matchEffect(keys.findByHash(hashSecret(key)), {
        onFailure: (error) => stale(key, hit, error),
        onSuccess: (record) => {
          if (cache.size >= MAX_CACHED) cache.clear()
          const entry = entryFor(record)
          cache.set(key, entry)
          return answer(entry)
        }
      })
    }

    const span = hotSpan("Auth.authenticate")
    // lazy like any effect: the key is checked (and its use noted) when the effect runs
    const authenticateKey = (key: string | undefined) =>
      span(Effect.suspend(() => key === undefined || key === "" ? fail(new MissingKey()) : lookup(key)))
    const authenticate = (authorization: string | undefined) => authenticateKey(bearerToken(authorization))

    const forget = (keyId: string) => {
      for (const [key, entry] of cache) if (entry.record?.id === keyId) cache.delete(key)
    }
    // a key or an org changed here or on another instance: its keys are read again on their next use
    ;(yield* ChangeFeed).listen((change) => {
      const id = change.slice(4)
      if (change.startsWith("key:")) forget(id)
      else for (const [key, entry] of cache) if (entry.record?.orgId === id) cache.delete(key)
    })

    return Auth.of({ authenticate, authenticateKey, forget })
  }))
}
