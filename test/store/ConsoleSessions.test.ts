/**
 * Single sign-on's stored half: a sign-in begun is finished once, by the browser that began it, within
 * its window; a session stands for its user with her roles now, and stops when it expires, is signed
 * out or its user is disabled. Only hashes of the browser's secrets are stored. Runs on the embedded
 * store and, in CI, on PostgreSQL.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { ConsoleSessions, csrfTokenOf } from "../../src/sso/ConsoleSessions.ts"
import { Users } from "../../src/users/Users.ts"
import { FreshStore } from "../utils/TestStore.ts"

const Store = ConsoleSessions.layer.pipe(Layer.provideMerge(Users.layer), Layer.provideMerge(FreshStore()))
const unique = () => Math.random().toString(36).slice(2, 10)

describe("console sign-ins and sessions", () => {
  it.effect("a sign-in is finished once, by its own browser", () =>
    Effect.gen(function*() {
      const sessions = yield* ConsoleSessions
      const state = `state-${unique()}`
      yield* sessions.beginLogin({ state, codeVerifier: "verifier", nonce: "nonce", browserSecret: "mine" })
      const stored = yield* (yield* SqlClient.SqlClient)<{ readonly browser_hash: string }>`SELECT browser_hash
      FROM console_logins WHERE state = ${state}`
      assert.notStrictEqual(stored[0]?.browser_hash, "mine")

      // another browser's attempt spends the sign-in: the state cannot be tried again and again
      assert.isTrue(Option.isNone(yield* sessions.takeLogin(state, "theirs")))
      assert.isTrue(Option.isNone(yield* sessions.takeLogin(state, "mine")))

      const second = `state-${unique()}`
      yield* sessions.beginLogin({ state: second, codeVerifier: "v2", nonce: "n2", browserSecret: "mine" })
      assert.deepStrictEqual(
        yield* sessions.takeLogin(second, "mine"),
        Option.some({ codeVerifier: "v2", nonce: "n2" })
      )
      assert.isTrue(Option.isNone(yield* sessions.takeLogin(second, "mine")))
    }).pipe(Effect.provide(Store)))

  it.effect("a sign-in left past its window cannot be finished", () =>
    Effect.gen(function*() {
      const sessions = yield* ConsoleSessions
      const sql = yield* SqlClient.SqlClient
      const state = `state-${unique()}`
      yield* sessions.beginLogin({ state, codeVerifier: "v", nonce: "n", browserSecret: "mine" })
      yield* sql`UPDATE console_logins SET created_at = ${new Date(Date.now() - 11 * 60_000)} WHERE state = ${state}`
      assert.isTrue(Option.isNone(yield* sessions.takeLogin(state, "mine")))
    }).pipe(Effect.provide(Store)))

  it.effect("a session stands for its user and her roles until signed out", () =>
    Effect.gen(function*() {
      const sessions = yield* ConsoleSessions
      const users = yield* Users
      const user = yield* users.create({ email: `s-${unique()}@example.test`, name: "S" })
      yield* users.setRoles(user.id, [{ role: "viewer", org_id: "org_x" }])
      const opened = yield* sessions.open(user.id, Duration.hours(1))
      assert.isAbove(opened.expiresAt.getTime(), Date.now() + 59 * 60_000)
      const stored = yield* (yield* SqlClient.SqlClient)<{ readonly token_hash: string }>`SELECT token_hash
      FROM console_sessions WHERE user_id = ${user.id}`
      assert.notStrictEqual(stored[0]?.token_hash, opened.token)

      assert.deepStrictEqual(yield* sessions.authenticate(opened.token), {
        _tag: "User",
        userId: user.id,
        email: user.email,
        tokenId: null,
        roles: [{ role: "viewer", org_id: "org_x" }]
      })
      // roles changed by an owner apply to the open session at once
      yield* users.setRoles(user.id, [])
      const now = yield* sessions.authenticate(opened.token)
      assert.deepStrictEqual(typeof now === "object" && now._tag === "User" ? now.roles : now, [])

      yield* sessions.close(opened.token)
      assert.strictEqual(yield* sessions.authenticate(opened.token), "revoked")
      assert.strictEqual(yield* sessions.authenticate("never-issued"), "unknown")
      assert.notStrictEqual(csrfTokenOf(opened.token), opened.token)
    }).pipe(Effect.provide(Store)))

  it.effect("sessions a day past their end are deleted when the next one opens", () =>
    Effect.gen(function*() {
      const sessions = yield* ConsoleSessions
      const sql = yield* SqlClient.SqlClient
      const user = yield* (yield* Users).create({ email: `old-${unique()}@example.test`, name: "O" })
      const stale = yield* sessions.open(user.id, Duration.hours(1))
      const recent = yield* sessions.open(user.id, Duration.zero)
      yield* sql`UPDATE console_sessions SET expires_at = ${new Date(Date.now() - 25 * 3_600_000)}
      WHERE user_id = ${user.id} AND expires_at > ${new Date(Date.now() + 60_000)}`
      yield* sessions.open(user.id, Duration.hours(1))
      assert.strictEqual(yield* sessions.authenticate(stale.token), "unknown")
      assert.strictEqual(yield* sessions.authenticate(recent.token), "expired")
    }).pipe(Effect.provide(Store)))

  it.effect("a session stops when it expires or its user is disabled", () =>
    Effect.gen(function*() {
      const sessions = yield* ConsoleSessions
      const users = yield* Users
      const user = yield* users.create({ email: `e-${unique()}@example.test`, name: "E" })
      const expired = yield* sessions.open(user.id, Duration.zero)
      assert.strictEqual(yield* sessions.authenticate(expired.token), "expired")
      const open = yield* sessions.open(user.id, Duration.hours(1))
      yield* users.update(user.id, { disabled: true })
      assert.strictEqual(yield* sessions.authenticate(open.token), "disabled")
    }).pipe(Effect.provide(Store)))
})
