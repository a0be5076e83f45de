/**
 * Authenticates API-key callers. Lookups are cached for `GATEWAY_KEY_CACHE_TTL` (default 5 s) so the
 * hot path rarely touches the store; `forget` drops a key at once on this instance (revocation, edits),
 * and other instances see the change when their cached entry expires.
 */
import { Context, Duration, Effect, Layer } from "effect"
import type { SqlError } from "effect/sql"
import { GatewayConfig } from "../Config.ts"
import { hashSecret } from "../keys/ApiKeySecret.ts"
import { ApiKeys, type KeyRecord } from "../keys/ApiKeys.ts"
import { hotSpan } from "../Tracing.ts"
import type { Caller } from "../kernel/Caller.ts"
import { AuthError, ExpiredKey, InvalidKey, MissingKey, RevokedKey } from "./AuthError.ts"


/** A key lookup as cached: the record (undefined for an unknown key) and the caller it makes. */
interface Entry {
  readonly record: KeyRecord | undefined
  readonly caller: Caller | undefined
  readonly until: number
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
  static readonly layer = Layer.effect(Auth, Effect.gen(function*() {
    const keys = yield* ApiKeys
    const ttlMs = Duration.toMillis((yield* GatewayConfig).keyCacheTtl)
    // a cached entry holds the answer ready: a known key costs a hash and a map lookup, no fiber steps
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
        compression: record.compression
      },
      until: Date.now() + ttlMs
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

    const lookup = (hash: string): Effect.Effect<Caller, AuthError | SqlError.SqlError> => {
      const hit = cache.get(hash)
      if (hit !== undefined && hit.until > Date.now()) return answer(hit)
      return Effect.flatMap(keys.findByHash(hash), (record) => {
        if (cache.size >= MAX_CACHED) cache.clear()
        const entry = entryFor(record)
        cache.set(hash, entry)
        return answer(entry)
      })
    }

    const span = hotSpan("Auth.authenticate")
    // lazy like any effect: the key is checked (and its use noted) when the effect runs
    const authenticateKey = (key: string | undefined) =>
      span(Effect.suspend(() => key === undefined || key === "" ? fail(new MissingKey()) : lookup(hashSecret(key))))
    const authenticate = (authorization: string | undefined) => authenticateKey(bearerToken(authorization))

    const forget = (keyId: string) => {
      for (const [hash, entry] of cache) if (entry.record?.id === keyId) cache.delete(hash)
    }

    return Auth.of({ authenticate, authenticateKey, forget })
  }))
}
