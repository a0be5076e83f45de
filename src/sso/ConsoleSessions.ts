/**
 * The console's single sign-on, as stored: sign-ins begun and not yet finished (the PKCE verifier and
 * nonce, bound to the browser that began them), and the sessions they open. A session's token lives
 * only in the browser's HTTP-only cookie; the store keeps its SHA-256, so a copy of the database signs
 * nobody in. Rows are shared by every instance, so a sign-in begun on one finishes on any.
 */
import { Context, Duration, Effect, Layer, Option } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { createHash } from "node:crypto"
import { newId, randomBase62 } from "../Ids.ts"
import { AdminError, Forbidden } from "../kernel/AdminError.ts"
import { CSRF_HEADER } from "../kernel/ConsoleCookie.ts"
import type { Principal } from "../kernel/Principal.ts"
import { hashSecret } from "../keys/ApiKeySecret.ts"
import { toDate } from "../store/Rows.ts"
import { now, nowPlus } from "../store/SqlParts.ts"
import { Users } from "../users/Users.ts"

/** How long a person has at the identity provider between leaving the console and coming back. */
export const LOGIN_WINDOW = Duration.minutes(10)

/** Why a session cookie was refused, for the 401's message. */
export type SessionRefusal = "unknown" | "expired" | "revoked" | "disabled"

export interface PendingLogin {
  readonly state: string
  readonly codeVerifier: string
  readonly nonce: string
  /** The secret in the browser's login cookie; only its SHA-256 is stored. */
  readonly browserSecret: string
}

export interface OpenedSession {
  readonly token: string
  readonly expiresAt: Date
}

/**
 * The token a console sends in `x-csrf-token` with every change: derived from the session's token, so
 * it needs no storage, and readable only by a page that may read the gateway's answers (its origin).
 */
export const csrfTokenOf = (sessionToken: string): string =>
  createHash("sha256").update(`csrf\u0000${sessionToken}`).digest("base64url")

/** A change sent with a session cookie but without its CSRF token: 403. */
export const csrfRefused = (what: string) =>
  new AdminError({
    reason: new Forbidden({
      message: `${what} with a console session needs its ${CSRF_HEADER} header (from /console/sso/status).`
    })
  })

export class ConsoleSessions extends Context.Service<ConsoleSessions, {
  readonly beginLogin: (login: PendingLogin) => Effect.Effect<void, SqlError.SqlError>
  /**
   * The verifier and nonce of the sign-in `state` began, once: taken only by the browser that began it
   * and within `LOGIN_WINDOW`; none otherwise.
   */
  readonly takeLogin: (
    state: string,
    browserSecret: string
  ) => Effect.Effect<Option.Option<{ readonly codeVerifier: string; readonly nonce: string }>, SqlError.SqlError>
  readonly open: (userId: string, ttl: Duration.Duration) => Effect.Effect<OpenedSession, SqlError.SqlError>
  /** The principal a session token stands for (the person and her roles now), or why it is refused. */
  readonly authenticate: (token: string) => Effect.Effect<Principal | SessionRefusal, SqlError.SqlError>
  readonly close: (token: string) => Effect.Effect<void, SqlError.SqlError>
}>()("svc-gateway/ConsoleSessions") {
  static readonly layer = Layer.effect(
    ConsoleSessions,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const users = yield* Users

      const beginLogin = (login: PendingLogin) =>
        Effect.gen(function*() {
          // sign-ins abandoned at the provider go when the next one begins
          yield* sql`DELETE FROM console_logins WHERE created_at < ${nowPlus(sql, -Duration.toMillis(LOGIN_WINDOW))}`
          yield* sql`INSERT INTO console_logins (state, code_verifier, nonce, browser_hash)
          VALUES (${login.state}, ${login.codeVerifier}, ${login.nonce}, ${hashSecret(login.browserSecret)})`
        })

      const takeLogin = (state: string, browserSecret: string) =>
        Effect.gen(function*() {
          const rows = yield* sql<{
            readonly code_verifier: string
            readonly nonce: string
            readonly browser_hash: string
            readonly created_at: Date | string
          }>`DELETE FROM console_logins WHERE state = ${state}
          RETURNING code_verifier, nonce, browser_hash, created_at`
          const row = rows[0]
          if (row === undefined || row.browser_hash !== hashSecret(browserSecret)) return Option.none()
          if (toDate(row.created_at).getTime() + Duration.toMillis(LOGIN_WINDOW) < Date.now()) return Option.none()
          return Option.some({ codeVerifier: row.code_verifier, nonce: row.nonce })
        })

      const open = (userId: string, ttl: Duration.Duration) =>
        Effect.gen(function*() {
          // sessions over a day past their end are of no use, not even to say why they were refused
          yield* sql`DELETE FROM console_sessions WHERE expires_at < ${
            nowPlus(sql, -Duration.toMillis(Duration.days(1)))
          }`
          const token = randomBase62(43)
          const expiresAt = new Date(Date.now() + Duration.toMillis(ttl))
          yield* sql`INSERT INTO console_sessions (id, token_hash, user_id, expires_at)
          VALUES (${newId("csess")}, ${hashSecret(token)}, ${userId}, ${expiresAt})`
          return { token, expiresAt }
        })

      const authenticate = Effect.fn("ConsoleSessions.authenticate")(function*(token: string) {
        const [row] = yield* sql<{
          readonly user_id: string
          readonly expires_at: Date | string
          readonly revoked_at: Date | string | null
        }>`SELECT user_id, expires_at, revoked_at FROM console_sessions WHERE token_hash = ${hashSecret(token)}`
        if (row === undefined) return "unknown" as const
        if (row.revoked_at !== null) return "revoked" as const
        if (toDate(row.expires_at).getTime() <= Date.now()) return "expired" as const
        const user = yield* users.get(row.user_id).pipe(
          Effect.map(Option.some),
          Effect.catchTag("AdminError", () => Effect.succeed(Option.none()))
        )
        if (Option.isNone(user)) return "unknown" as const
        if (user.value.disabled_at !== null) return "disabled" as const
        const principal: Principal = {
          _tag: "User",
          userId: user.value.id,
          email: user.value.email,
          tokenId: null,
          roles: user.value.roles
        }
        return principal
      })

      const close = (token: string) =>
        Effect.asVoid(sql`UPDATE console_sessions SET revoked_at = ${now(sql)}
        WHERE token_hash = ${hashSecret(token)} AND revoked_at IS NULL`)

      return ConsoleSessions.of({ beginLogin, takeLogin, open, authenticate, close })
    })
  )
}
