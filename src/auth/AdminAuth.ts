/**
 * Who calls `/admin/v1`: the admin token (an owner: bootstrap and automation), or a person's personal
 * access token (`users/Users.ts`), with that person's roles. The admin token comes from
 * `GATEWAY_ADMIN_TOKEN` when set; otherwise the first start generates one, stores only its SHA-256 and
 * prints it once. Compared in constant time.
 */
import { Console, Context, Effect, Layer, Option, Redacted } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { createHash, timingSafeEqual } from "node:crypto"
import { GatewayConfig } from "../Config.ts"
import { randomBase62 } from "../Ids.ts"
import { ADMIN_TOKEN, type Principal } from "../kernel/Principal.ts"
import { TOKEN_SCHEME, type TokenRefusal, Users } from "../users/Users.ts"
import { bearerToken } from "./Auth.ts"
import { AuthError, InvalidAdminToken } from "./AuthError.ts"

const SETTING = "admin_token_sha256"
const digest = (token: string) => createHash("sha256").update(token).digest()

const REFUSED: Record<TokenRefusal, string> = {
  unknown: "The personal access token is not valid; make a new one (POST /admin/v1/users/{id}/tokens).",
  expired: "The personal access token has expired; make a new one.",
  revoked: "The personal access token has been revoked.",
  disabled: "The personal access token's user is disabled."
}

export class AdminAuth extends Context.Service<AdminAuth, {
  /** The principal the request's `Authorization` header stands for. */
  readonly authenticate: (authorization: string | undefined) => Effect.Effect<Principal, AuthError | SqlError.SqlError>
}>()("svc-gateway/AdminAuth") {
  static readonly layer = Layer.effect(
    AdminAuth,
    Effect.gen(function*() {
      const config = yield* GatewayConfig
      const sql = yield* SqlClient.SqlClient
      const users = yield* Users

      const expected: Buffer = yield* Option.match(config.adminToken, {
        onSome: (token) => Effect.succeed(digest(Redacted.value(token))),
        onNone: () =>
          Effect.gen(function*() {
            const rows = yield* sql<{ readonly value: string }>`SELECT value FROM gateway_settings
            WHERE name = ${SETTING}`
            const stored = rows[0]
            if (stored !== undefined) return Buffer.from(stored.value, "hex")
            const token = `sa-svc-${randomBase62(40)}`
            const hash = digest(token)
            const inserted = yield* sql<{ readonly value: string }>`INSERT INTO gateway_settings (name, value)
            VALUES (${SETTING}, ${hash.toString("hex")}) ON CONFLICT (name) DO NOTHING RETURNING value`
            if (inserted.length === 0) {
              // another instance starting at the same time stored its token first: that one is the token
              const winner = yield* sql<{ readonly value: string }>`SELECT value FROM gateway_settings
              WHERE name = ${SETTING}`
              return Buffer.from(winner[0]!.value, "hex")
            }
            yield* Console.log(
              `Generated an admin token (shown once; set GATEWAY_ADMIN_TOKEN to choose your own):\n  ${token}`
            )
            return hash
          })
      })

      const refuse = (detail?: string) =>
        Effect.fail(new AuthError({ reason: new InvalidAdminToken(detail === undefined ? {} : { detail }) }))

      const authenticate = (authorization: string | undefined) => {
        const token = bearerToken(authorization)
        if (token === undefined) return refuse()
        if (token.startsWith(TOKEN_SCHEME)) {
          return Effect.flatMap(
            users.authenticate(token),
            (found) => typeof found === "string" ? refuse(REFUSED[found]) : Effect.succeed(found)
          )
        }
        return timingSafeEqual(digest(token), expected) ? Effect.succeed(ADMIN_TOKEN) : refuse()
      }

      return AdminAuth.of({ authenticate })
    })
  )
}
