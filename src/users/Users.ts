/**
 * The people who administer the gateway: users (an email and a name, disabled rather than deleted),
 * their roles (`auth/Principal.ts`), and their personal access tokens, which they send as
 * `Authorization: Bearer` to the admin API and the CLI. A token is shown once, when made; only its
 * SHA-256 is kept, and it stops working when it expires, is revoked, or its user is disabled.
 */
import { Context, Effect, Layer, Option } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { newId, randomBase62 } from "../Ids.ts"
import { AdminError, Conflict } from "../kernel/AdminError.ts"
import type { Principal } from "../kernel/Principal.ts"
import type { RoleGrant } from "../kernel/Roles.ts"
import { hashSecret } from "../keys/ApiKeySecret.ts"
import { toDateOrNull, toIso, toIsoOrNull } from "../store/Rows.ts"
import { now } from "../store/SqlParts.ts"

/** A personal access token's scheme: told apart from API keys (`sk-svc-`) and the admin token (`sa-svc-`). */
export const TOKEN_SCHEME = "pat-svc-"

export interface UserInfo {
  readonly id: string
  readonly email: string
  readonly name: string
  readonly created_at: string
  readonly disabled_at: string | null
  readonly roles: ReadonlyArray<RoleGrant>
}

export interface TokenInfo {
  readonly id: string
  readonly user_id: string
  readonly name: string
  readonly prefix: string
  readonly created_at: string
  readonly expires_at: string | null
  readonly revoked_at: string | null
}

/** The create response: the only place the token ever appears. */
export interface CreatedToken extends TokenInfo {
  readonly token: string
}

/** Why a personal access token was refused, for the 401's message. */
export type TokenRefusal = "unknown" | "expired" | "revoked" | "disabled"

interface UserRow {
  readonly id: string
  readonly email: string
  readonly name: string
  readonly created_at: Date | string
  readonly disabled_at: Date | string | null
}

interface TokenRow {
  readonly id: string
  readonly user_id: string
  readonly name: string
  readonly prefix: string
  readonly created_at: Date | string
  readonly expires_at: Date | string | null
  readonly revoked_at: Date | string | null
}

const USER_COLUMNS = "id, email, name, created_at, disabled_at"
const TOKEN_COLUMNS = "id, user_id, name, prefix, created_at, expires_at, revoked_at"

/** Roles as stored: `''` stands for no org (an owner's). */
const grantOf = (row: { readonly role: string; readonly org_id: string }): RoleGrant => ({
  role: row.role as RoleGrant["role"],
  org_id: row.org_id === "" ? null : row.org_id
})

const tokenInfo = (row: TokenRow): TokenInfo => ({
  id: row.id,
  user_id: row.user_id,
  name: row.name,
  prefix: row.prefix,
  created_at: toIso(row.created_at),
  expires_at: toIsoOrNull(row.expires_at),
  revoked_at: toIsoOrNull(row.revoked_at)
})

export class Users extends Context.Service<Users, {
  readonly create: (input: { readonly email: string; readonly name: string }) => Effect.Effect<
    UserInfo,
    SqlError.SqlError | AdminError
  >
  readonly list: Effect.Effect<ReadonlyArray<UserInfo>, SqlError.SqlError>
  readonly get: (userId: string) => Effect.Effect<UserInfo, SqlError.SqlError | AdminError>
  /** The user with this email (compared without case), if any: how single sign-on finds a person. */
  readonly findByEmail: (email: string) => Effect.Effect<Option.Option<UserInfo>, SqlError.SqlError>
  readonly update: (
    userId: string,
    changes: { readonly name?: string | undefined; readonly disabled?: boolean | undefined }
  ) => Effect.Effect<UserInfo, SqlError.SqlError | AdminError>
  /** Replaces the user's roles with `roles`, in one transaction. */
  readonly setRoles: (
    userId: string,
    roles: ReadonlyArray<RoleGrant>
  ) => Effect.Effect<UserInfo, SqlError.SqlError | AdminError>
  readonly createToken: (
    userId: string,
    input: { readonly name: string; readonly expiresAt: Date | null }
  ) => Effect.Effect<CreatedToken, SqlError.SqlError | AdminError>
  readonly listTokens: (userId: string) => Effect.Effect<ReadonlyArray<TokenInfo>, SqlError.SqlError | AdminError>
  readonly revokeToken: (userId: string, tokenId: string) => Effect.Effect<TokenInfo, SqlError.SqlError | AdminError>
  /** The principal a personal access token stands for, or why it is refused. */
  readonly authenticate: (token: string) => Effect.Effect<Principal | TokenRefusal, SqlError.SqlError>
}>()("svc-gateway/Users") {
  static readonly layer = Layer.effect(
    Users,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient

      const rolesOf = (userId: string) =>
        Effect.map(
          sql<{ readonly role: string; readonly org_id: string }>`SELECT role, org_id FROM user_roles
          WHERE user_id = ${userId} ORDER BY role, org_id`,
          (rows) => rows.map(grantOf)
        )

      const info = (row: UserRow) =>
        Effect.map(rolesOf(row.id), (roles): UserInfo => ({
          id: row.id,
          email: row.email,
          name: row.name,
          created_at: toIso(row.created_at),
          disabled_at: toIsoOrNull(row.disabled_at),
          roles
        }))

      const selectUser = Effect.fnUntraced(function*(userId: string) {
        const [row] = yield* sql<UserRow>`SELECT ${sql.literal(USER_COLUMNS)} FROM users WHERE id = ${userId}`
        if (row === undefined) return yield* AdminError.notFound("user", userId)
        return row
      })

      const get = (userId: string) => Effect.flatMap(selectUser(userId), info)

      const findByEmail = Effect.fn("Users.findByEmail")(function*(email: string) {
        const [row] = yield* sql<UserRow>`SELECT ${sql.literal(USER_COLUMNS)} FROM users
        WHERE email = ${email.toLowerCase()}`
        return row === undefined ? Option.none() : Option.some(yield* info(row))
      })

      const create = Effect.fn("Users.create")(function*(input: { readonly email: string; readonly name: string }) {
        const email = input.email.toLowerCase()
        const rows = yield* sql<UserRow>`INSERT INTO users (id, email, name) VALUES (${
          newId("user")
        }, ${email}, ${input.name})
        ON CONFLICT (email) DO NOTHING RETURNING ${sql.literal(USER_COLUMNS)}`
        if (rows.length === 0) {
          return yield* new AdminError({ reason: new Conflict({ message: `A user with email '${email}' exists.` }) })
        }
        return yield* info(rows[0]!)
      })

      const list = Effect.gen(function*() {
        const rows = yield* sql<UserRow>`SELECT ${sql.literal(USER_COLUMNS)} FROM users ORDER BY created_at, id`
        return yield* Effect.forEach(rows, info)
      })

      const update = Effect.fn("Users.update")(function*(
        userId: string,
        changes: { readonly name?: string | undefined; readonly disabled?: boolean | undefined }
      ) {
        yield* selectUser(userId)
        if (changes.name !== undefined) yield* sql`UPDATE users SET name = ${changes.name} WHERE id = ${userId}`
        if (changes.disabled === true) {
          yield* sql`UPDATE users SET disabled_at = ${now(sql)} WHERE id = ${userId} AND disabled_at IS NULL`
        }
        if (changes.disabled === false) yield* sql`UPDATE users SET disabled_at = NULL WHERE id = ${userId}`
        return yield* get(userId)
      })

      const setRoles = Effect.fn("Users.setRoles")(function*(userId: string, roles: ReadonlyArray<RoleGrant>) {
        yield* selectUser(userId)
        yield* sql.withTransaction(Effect.gen(function*() {
          yield* sql`DELETE FROM user_roles WHERE user_id = ${userId}`
          const unique = new Map(roles.map((grant) => [`${grant.role}\u0000${grant.org_id ?? ""}`, grant]))
          for (const grant of unique.values()) {
            yield* sql`INSERT INTO user_roles (user_id, role, org_id) VALUES (${userId}, ${grant.role}, ${
              grant.org_id ?? ""
            })`
          }
        }))
        return yield* get(userId)
      })

      const createToken = Effect.fn("Users.createToken")(function*(
        userId: string,
        input: { readonly name: string; readonly expiresAt: Date | null }
      ) {
        yield* selectUser(userId)
        const token = `${TOKEN_SCHEME}${randomBase62(40)}`
        const rows = yield* sql<TokenRow>`INSERT INTO user_tokens (id, user_id, name, token_hash, prefix, expires_at)
        VALUES (${newId("pat")}, ${userId}, ${input.name}, ${hashSecret(token)}, ${
          token.slice(0, TOKEN_SCHEME.length + 6)
        }, ${input.expiresAt})
        RETURNING ${sql.literal(TOKEN_COLUMNS)}`
        return { ...tokenInfo(rows[0]!), token }
      })

      const listTokens = Effect.fn("Users.listTokens")(function*(userId: string) {
        yield* selectUser(userId)
        const rows = yield* sql<TokenRow>`SELECT ${sql.literal(TOKEN_COLUMNS)} FROM user_tokens
        WHERE user_id = ${userId} ORDER BY created_at, id`
        return rows.map(tokenInfo)
      })

      const revokeToken = Effect.fn("Users.revokeToken")(function*(userId: string, tokenId: string) {
        yield* sql`UPDATE user_tokens SET revoked_at = ${now(sql)}
        WHERE id = ${tokenId} AND user_id = ${userId} AND revoked_at IS NULL`
        const [row] = yield* sql<TokenRow>`SELECT ${sql.literal(TOKEN_COLUMNS)} FROM user_tokens
        WHERE id = ${tokenId} AND user_id = ${userId}`
        if (row === undefined) return yield* AdminError.notFound("token", tokenId)
        return tokenInfo(row)
      })

      const authenticate = Effect.fn("Users.authenticate")(function*(token: string) {
        const [row] = yield* sql<
          {
            readonly token_id: string
            readonly expires_at: Date | string | null
            readonly revoked_at: Date | string | null
            readonly user_id: string
            readonly email: string
            readonly disabled_at: Date | string | null
          }
        >`SELECT t.id AS token_id, t.expires_at, t.revoked_at, u.id AS user_id, u.email, u.disabled_at
        FROM user_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = ${hashSecret(token)}`
        if (row === undefined) return "unknown" as const
        if (row.revoked_at !== null) return "revoked" as const
        const expires = toDateOrNull(row.expires_at)
        if (expires !== null && expires.getTime() <= Date.now()) return "expired" as const
        if (row.disabled_at !== null) return "disabled" as const
        const principal: Principal = {
          _tag: "User",
          userId: row.user_id,
          email: row.email,
          tokenId: row.token_id,
          roles: yield* rolesOf(row.user_id)
        }
        return principal
      })

      return Users.of({
        create,
        list,
        get,
        findByEmail,
        update,
        setRoles,
        createToken,
        listTokens,
        revokeToken,
        authenticate
      })
    })
  )
}
