/**
 * The admin token guarding `/admin/v1`. From `GATEWAY_ADMIN_TOKEN` when set; otherwise the first start
 * generates one, stores only its SHA-256 and prints it once. Compared in constant time.
 */
import { Console, Context, Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { createHash, timingSafeEqual } from "node:crypto"
import { GatewayConfig } from "../Config.ts"
import { randomBase62 } from "../Ids.ts"
import { bearerToken } from "./Auth.ts"
import { AuthError, InvalidAdminToken } from "./AuthError.ts"

const SETTING = "admin_token_sha256"
const digest = (token: string) => createHash("sha256").update(token).digest()

export class AdminAuth extends Context.Service<AdminAuth, {
  readonly check: (authorization: string | undefined) => Effect.Effect<void, AuthError>
}>()("svc-gateway/AdminAuth") {
  static readonly layer = Layer.effect(
    AdminAuth,
    Effect.gen(function*() {
      const config = yield* GatewayConfig
      const sql = yield* SqlClient.SqlClient

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

      const check = (authorization: string | undefined) => {
        const token = bearerToken(authorization)
        return token !== undefined && timingSafeEqual(digest(token), expected)
          ? Effect.void
          : Effect.fail(new AuthError({ reason: new InvalidAdminToken() }))
      }

      return AdminAuth.of({ check })
    })
  )
}
