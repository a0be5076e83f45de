/**
 * The admin token: `GATEWAY_ADMIN_TOKEN` when set (and then nothing is generated or stored); otherwise
 * generated on the first start, printed once, kept only as a SHA-256 in `gateway_settings`, and
 * accepted again after a restart without printing a new one.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { TestConsole } from "effect/testing"
import { createHash } from "node:crypto"
import { AdminAuth } from "../../src/auth/AdminAuth.ts"
import { Users } from "../../src/users/Users.ts"
import { FreshStore } from "../utils/TestStore.ts"

const ADMIN_TOKEN = /^sa-svc-[0-9A-Za-z]{40}$/
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")

/** Builds AdminAuth anew over the current store and settings, as a (re)started gateway does. */
const startAdminAuth = Effect.map(
  Layer.build(Layer.fresh(AdminAuth.layer.pipe(Layer.provide(Users.layer)))),
  Context.get(AdminAuth)
)

const settingRows = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return yield* sql<{ readonly name: string; readonly value: string }>`SELECT name, value FROM gateway_settings`
})

/** The failure tag of `authenticate`, or "accepted". */
const outcome = (auth: AdminAuth["Service"], header: string | undefined) =>
  auth.authenticate(header).pipe(
    Effect.map(() => "accepted"),
    Effect.catchTag("AuthError", (error) => Effect.succeed(error.reason._tag))
  )

/** Printed text, one string per `Console.log` argument. */
const printed = Effect.map(TestConsole.logLines, (lines) => lines.map(String))

describe("AdminAuth", () => {
  it.effect("with GATEWAY_ADMIN_TOKEN set, accepts exactly that bearer token and stores nothing", () =>
    Effect.gen(function*() {
      const auth = yield* startAdminAuth
      assert.strictEqual(yield* outcome(auth, "Bearer my-chosen-token"), "accepted")
      assert.strictEqual(yield* outcome(auth, "bearer   my-chosen-token "), "accepted")
      for (
        const header of [
          undefined,
          "",
          "my-chosen-token",
          "Basic my-chosen-token",
          "Bearer my-chosen-token2",
          "Bearer my-chosen-toke",
          "Bearer MY-CHOSEN-TOKEN",
          "Bearer my-chosen-token extra"
        ]
      ) {
        assert.strictEqual(yield* outcome(auth, header), "InvalidAdminToken", String(header))
      }
      assert.deepStrictEqual(yield* printed, [])
      assert.deepStrictEqual(yield* settingRows, [])
    }).pipe(Effect.provide(FreshStore({ GATEWAY_ADMIN_TOKEN: "my-chosen-token" }))))

  it.effect("without it, the first start generates a token, prints it once and stores only its hash", () =>
    Effect.gen(function*() {
      const first = yield* startAdminAuth
      const lines = yield* printed
      assert.strictEqual(lines.length, 1, lines.join("\n"))
      const tokens = lines[0]!.match(/sa-svc-\S+/g) ?? []
      assert.strictEqual(tokens.length, 1, lines[0])
      const token = tokens[0]!
      assert.match(token, ADMIN_TOKEN)
      assert.include(lines[0]!, "GATEWAY_ADMIN_TOKEN")

      assert.deepStrictEqual(yield* settingRows, [{ name: "admin_token_sha256", value: sha256(token) }])
      assert.strictEqual(yield* outcome(first, `Bearer ${token}`), "accepted")
      assert.strictEqual(yield* outcome(first, `Bearer ${sha256(token)}`), "InvalidAdminToken")
      assert.strictEqual(yield* outcome(first, undefined), "InvalidAdminToken")

      // a restart over the same store: no new token, and the first one still works
      const second = yield* startAdminAuth
      assert.deepStrictEqual(yield* printed, lines)
      assert.deepStrictEqual(yield* settingRows, [{ name: "admin_token_sha256", value: sha256(token) }])
      assert.strictEqual(yield* outcome(second, `Bearer ${token}`), "accepted")
      assert.strictEqual(
        yield* outcome(second, "Bearer sa-svc-0000000000000000000000000000000000000000"),
        "InvalidAdminToken"
      )
    }).pipe(Effect.provide(FreshStore())))

  it.effect("two stores generate two different tokens", () =>
    Effect.gen(function*() {
      const tokenOf = Effect.gen(function*() {
        yield* startAdminAuth
        return (yield* settingRows)[0]?.value
      })
      const a = yield* tokenOf.pipe(Effect.provide(FreshStore()))
      const b = yield* tokenOf.pipe(Effect.provide(FreshStore()))
      assert.isString(a)
      assert.isString(b)
      assert.notStrictEqual(a, b)
      assert.strictEqual((yield* printed).length, 2)
    }))

  it.effect("two instances starting at once on one empty store agree on one token", () =>
    Effect.gen(function*() {
      const [a, b] = yield* Effect.all([startAdminAuth, startAdminAuth], { concurrency: 2 })
      const rows = yield* settingRows
      assert.strictEqual(rows.length, 1)
      const tokens = (yield* printed).flatMap((line) => line.match(/sa-svc-\S+/g) ?? [])
      const working = tokens.filter((token) => sha256(token) === rows[0]!.value)
      assert.strictEqual(working.length, 1, "the printed token is the stored one")
      assert.deepStrictEqual(tokens, working, "no token is printed that does not work")
      assert.strictEqual(yield* outcome(a, `Bearer ${working[0]}`), "accepted")
      assert.strictEqual(yield* outcome(b, `Bearer ${working[0]}`), "accepted")
    }).pipe(Effect.provide(FreshStore())))
})
