/**
 * `svc-gateway mcp` through a running gateway, against a real MCP server on 127.0.0.1: a server added
 * with a header (never printed back), its tools listed with how to activate them, refreshed, listed,
 * removed; a malformed header refused before anything is called; and on the local store, the plain
 * reason these need the running gateway.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { afterAll, beforeAll } from "vitest"
import { type FakeMcpServer, runLetters, startFakeMcpServer } from "../utils/FakeMcpServer.ts"
import { ADMIN_TOKEN, startGateway, type TestGateway } from "../utils/TestGateway.ts"
import { runArgs, sharedStore, stdoutJson, untouchableStore } from "./CliHarness.ts"
import { CliStoreLive } from "./CliHarness.ts"

describe("svc-gateway mcp through a gateway", () => {
  let gw: TestGateway
  let server: FakeMcpServer
  let orgId: string
  const name = `cli${runLetters()}`

  beforeAll(async () => {
    server = await startFakeMcpServer({
      tools: [{ name: "lookup", description: "Looks things up", inputSchema: { type: "object" }, run: () => "ok" }],
      requireHeader: { name: "x-api-key", value: "cli-secret-1" }
    })
    gw = await startGateway({ GATEWAY_SECRET_KEY: "a test key that is long enough to be one" })
    orgId = (await gw.admin("POST", "/orgs", { name: `mcp-cli-${name}` })).json.id
  })
  afterAll(async () => {
    await gw?.close()
    await server?.close()
  })

  const cli = (...args: ReadonlyArray<string>) =>
    runArgs(["--url", gw.url, "--admin-token", ADMIN_TOKEN, ...args], { store: untouchableStore })

  it.effect("adds, lists, refreshes and removes a server; its header is never printed", () =>
    Effect.gen(function*() {
      const added = yield* cli(
        "mcp",
        "add",
        "--org",
        orgId,
        "--name",
        name,
        "--server-url",
        server.url,
        "--header",
        "X-Api-Key: cli-secret-1"
      )
      assert.strictEqual(added.code, 0, added.stderr)
      assert.include(added.stdout, `svc_mcp_${name}_lookup  Looks things up`)
      assert.include(added.stdout, `svc-gateway tools set --org ${orgId} --tool <tool_id> --activated true`)
      assert.notInclude(added.stdout, "cli-secret-1")

      const listed = yield* cli("mcp", "list", "--org", orgId, "--json")
      assert.strictEqual(listed.code, 0, listed.stderr)
      const [shown] = (stdoutJson(listed) as { data: Array<{ id: string; header_names: Array<string> }> }).data
      assert.deepStrictEqual(shown?.header_names, ["X-Api-Key"])
      assert.notInclude(listed.stdout, "cli-secret-1")

      const refreshed = yield* cli("mcp", "refresh", "--org", orgId, shown!.id)
      assert.strictEqual(refreshed.code, 0, refreshed.stderr)
      const table = yield* cli("mcp", "list", "--org", orgId)
      assert.match(table.stdout, new RegExp(`${shown!.id} +${name} +${server.url.replace(/[.]/g, "\\.")} +1 +0 +-`))

      const removed = yield* cli("mcp", "remove", "--org", orgId, shown!.id)
      assert.strictEqual(removed.code, 0, removed.stderr)
      assert.include((yield* cli("mcp", "list", "--org", orgId)).stdout, "No MCP servers yet")
    }))

  it.effect("refuses a malformed header before calling the gateway", () =>
    Effect.gen(function*() {
      const refused = yield* runArgs(
        [
          "mcp",
          "add",
          "--org",
          "org_1",
          "--name",
          "x",
          "--server-url",
          "http://127.0.0.1:1/mcp",
          "--header",
          "no colon"
        ],
        { store: untouchableStore }
      )
      assert.strictEqual(refused.code, 2)
      assert.include(refused.stderr, "Invalid --header 'no colon'")
    }))
})

describe("svc-gateway mcp on the local store", () => {
  it.effect("says the running gateway is needed", () =>
    Effect.gen(function*() {
      const result = yield* Effect.flatMap(
        sharedStore,
        (store) => runArgs(["mcp", "list", "--org", "org_1"], { store })
      )
      assert.strictEqual(result.code, 2)
      assert.include(result.stderr, "use --url (or GATEWAY_URL)")
    }).pipe(Effect.provide(CliStoreLive)))
})
