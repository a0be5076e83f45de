/**
 * `svc-gateway users` and `svc-gateway audit` on the store (in process, as the CLI's): users made,
 * listed, given roles and a token printed once, every change audited as the CLI's; role specs
 * refused plainly; and through a gateway with a person's token, what her role allows.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { afterAll, beforeAll, it as vitestIt } from "vitest"
import { ADMIN_TOKEN, startGateway, type TestGateway } from "../utils/TestGateway.ts"
import { unique } from "../utils/TestStore.ts"
import { CliStoreLive, runArgs, sharedStore, stdoutJson, untouchableStore } from "./CliHarness.ts"

layer(CliStoreLive)("svc-gateway users and audit on the store", (it) => {
  const run = (...args: ReadonlyArray<string>) => Effect.flatMap(sharedStore, (store) => runArgs(args, { store }))

  it.effect("create, list, roles, a token printed once; each change in the audit log as the CLI's", () =>
    Effect.gen(function*() {
      const org = yield* run("orgs", "create", "--name", unique("people"), "--json")
      const orgId = (stdoutJson(org) as { id: string }).id
      const email = `${unique("ana")}@example.com`.toLowerCase()
      const created = yield* run("users", "create", "--email", email, "--name", "Ana", "--json")
      assert.strictEqual(created.code, 0, created.stderr)
      const userId = (stdoutJson(created) as { id: string }).id

      const roles = yield* run("users", "roles", userId, "--roles", `admin:${orgId},owner`)
      assert.strictEqual(roles.code, 0, roles.stderr)
      assert.include(roles.stdout, `${email} now has: admin:${orgId}, owner.`)
      const listed = yield* run("users", "list")
      assert.match(listed.stdout, new RegExp(`${userId} +${email} +Ana +admin:${orgId}, owner`))

      const token = yield* run("users", "token", userId, "--name", "laptop")
      assert.strictEqual(token.code, 0, token.stderr)
      assert.match(token.stdout, /^ {2}pat-svc-[0-9A-Za-z]{40}$/m)

      const audit = yield* run("audit", "--actor", "cli", "--action", "user.roles", "--limit", "200", "--json")
      assert.strictEqual(audit.code, 0, audit.stderr)
      const records = (stdoutJson(audit) as { data: Array<{ target: { id: string }; actor: { kind: string } }> }).data
      assert.isTrue(records.some((r) => r.target.id === userId && r.actor.kind === "cli"))
      assert.notInclude(JSON.stringify(yield* run("audit", "--limit", "200", "--json")), token.stdout.trim())
    }))

  it.effect("disable and enable: the user's tokens refused meanwhile, her roles kept, both audited", () =>
    Effect.gen(function*() {
      const org = yield* run("orgs", "create", "--name", unique("people"), "--json")
      const orgId = (stdoutJson(org) as { id: string }).id
      const email = `${unique("dan")}@example.com`.toLowerCase()
      const userId = (stdoutJson(yield* run("users", "create", "--email", email, "--name", "Dan", "--json")) as {
        id: string
      }).id
      assert.strictEqual((yield* run("users", "roles", userId, "--roles", `viewer:${orgId}`)).code, 0)

      const disabled = yield* run("users", "disable", userId)
      assert.strictEqual(disabled.code, 0, disabled.stderr)
      assert.include(disabled.stdout, `Disabled ${email}`)
      const listed = yield* run("users", "list", "--json")
      const user = (stdoutJson(listed) as { data: Array<{ id: string; disabled_at: string | null; roles: unknown }> })
        .data.find((u) => u.id === userId)
      assert.isNotNull(user?.disabled_at)
      assert.deepStrictEqual(user?.roles, [{ role: "viewer", org_id: orgId }])

      const enabled = yield* run("users", "enable", userId, "--json")
      assert.strictEqual(enabled.code, 0, enabled.stderr)
      assert.isNull((stdoutJson(enabled) as { disabled_at: string | null }).disabled_at)

      const audit = yield* run("audit", "--actor", "cli", "--action", "user.update", "--limit", "200", "--json")
      const records = (stdoutJson(audit) as { data: Array<{ target: { id: string } }> }).data
      assert.strictEqual(records.filter((r) => r.target.id === userId).length, 2)
    }))

  it.effect("disable refuses an unknown user plainly", () =>
    Effect.gen(function*() {
      const refused = yield* run("users", "disable", "user_nobody")
      assert.strictEqual(refused.code, 1)
      assert.include(refused.stderr, "user_nobody")
    }))

  it.effect("refuses a role that is not owner, admin:<org_id> or viewer:<org_id>, before opening the store", () =>
    Effect.gen(function*() {
      const refused = yield* runArgs(["users", "roles", "user_1", "--roles", "king:org_1"], { store: untouchableStore })
      assert.strictEqual(refused.code, 2)
      assert.include(refused.stderr, "Invalid role 'king:org_1'")
    }))
})

describe("svc-gateway audit through a gateway, with a person's token", () => {
  let gw: TestGateway
  beforeAll(async () => {
    gw = await startGateway()
  })
  afterAll(() => gw?.close())

  vitestIt("an org admin reads her org's changes and is refused the whole gateway's", async () => {
    const orgId = (await gw.admin("POST", "/orgs", { name: unique("audited") })).json.id as string
    const user = (await gw.admin("POST", "/users", { email: `${unique("ad")}@example.com`, name: "A" })).json
    await gw.admin("PUT", `/users/${user.id}/roles`, { roles: [{ role: "admin", org_id: orgId }] })
    const token = (await gw.admin("POST", `/users/${user.id}/tokens`, { name: "t" })).json.token as string
    const asAdmin = (...args: ReadonlyArray<string>) =>
      Effect.runPromise(runArgs(["--url", gw.url, "--admin-token", token, ...args], { store: untouchableStore }))
    await gw.admin("PATCH", `/orgs/${orgId}`, { log_content: true })
    const own = await asAdmin("audit", "--org", orgId)
    assert.strictEqual(own.code, 0, own.stderr)
    assert.match(own.stdout, /admin token +org\.update +org org_/)
    const all = await asAdmin("audit")
    assert.strictEqual(all.code, 1)
    assert.include(all.stderr, "Only an owner may do this")
    const asOwner = await Effect.runPromise(
      runArgs(["--url", gw.url, "--admin-token", ADMIN_TOKEN, "audit", "--org", orgId], { store: untouchableStore })
    )
    assert.strictEqual(asOwner.code, 0)
  })
})
