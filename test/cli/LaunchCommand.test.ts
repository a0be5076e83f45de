/**
 * `svc-gateway launch` and `svc-gateway statusline` through the real CLI entry (`bin/svc-gateway.mjs`)
 * as child processes, with stand-in clients on PATH that print what they were given: the arguments and
 * environment each client gets, the exit code passed on, the refusals (no key, a bad developer, an
 * unknown client, a client not installed), a key made through a running gateway's admin API, and the
 * status line's answers whatever the gateway says. The real clients are run by `npm run test:clients`.
 */
import { execFile } from "node:child_process"
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ADMIN_TOKEN, postChat, startGateway, type TestGateway } from "../utils/TestGateway.ts"
import { until } from "../utils/Until.ts"

const BIN = fileURLToPath(new URL("../../bin/svc-gateway.mjs", import.meta.url))

/** A folder of stand-in clients: each prints its arguments and environment as JSON and exits `FAKE_EXIT`. */
const fakeClients = (() => {
  const dir = mkdtempSync(join(tmpdir(), "svc-gateway-fake-clients-"))
  for (const name of ["claude", "codex", "opencode"]) {
    const path = join(dir, name)
    writeFileSync(
      path,
      `#!${process.execPath}\nconsole.log(JSON.stringify({ args: process.argv.slice(2), env: process.env }))\n` +
        `process.exit(Number(process.env.FAKE_EXIT ?? 0))\n`
    )
    chmodSync(path, 0o755)
  }
  return dir
})()

interface Run {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

const cli = (args: ReadonlyArray<string>, env: Record<string, string> = {}, stdin = ""): Promise<Run> =>
  new Promise((resolve) => {
    const child = execFile(process.execPath, [BIN, ...args], {
      env: { PATH: `${fakeClients}:/usr/bin:/bin`, HOME: tmpdir(), ...env },
      timeout: 30_000
    }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr })
    })
    child.stdin?.end(stdin)
  })

/** What a stand-in client printed. */
const given = (run: Run) => JSON.parse(run.stdout) as { args: Array<string>; env: Record<string, string> }

const URL_ARGS = ["--url", "http://127.0.0.1:9"]

describe("svc-gateway launch", () => {
  it("claude: the gateway and key in its environment, the developer's tag, the status line, the user's arguments", async () => {
    const run = await cli(
      ["launch", "claude", ...URL_ARGS, "--developer", "ana@example.com", "--model", "local/echo", "--", "-p", "hi"],
      { SVC_GATEWAY_KEY: "sk-gw", ANTHROPIC_API_KEY: "sk-ant-own" }
    )
    expect(run.code, run.stderr).toBe(0)
    const { args, env } = given(run)
    expect(args.slice(2)).toEqual(["-p", "hi"])
    expect(args[0]).toBe("--settings")
    const settings = JSON.parse(args[1]!)
    expect(settings.statusLine.type).toBe("command")
    expect(settings.statusLine.command).toMatch(/'.*node' '.*bin\/svc-gateway\.mjs' statusline$/)
    expect(env).toMatchObject({
      ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
      ANTHROPIC_AUTH_TOKEN: "sk-gw",
      ANTHROPIC_CUSTOM_HEADERS: "x-svc-tags: developer:ana@example.com",
      ANTHROPIC_MODEL: "local/echo",
      ANTHROPIC_DEFAULT_HAIKU_MODEL: "local/echo",
      SVC_GATEWAY_URL: "http://127.0.0.1:9",
      SVC_GATEWAY_KEY: "sk-gw"
    })
    // the user's own Anthropic key would take the place of the gateway's
    expect(env["ANTHROPIC_API_KEY"]).toBeUndefined()
  })

  it("codex: the provider as -c overrides of this run only, the key by name, the developer's header", async () => {
    const run = await cli([
      "launch",
      "codex",
      ...URL_ARGS,
      "--key",
      "sk-gw",
      "--developer",
      "ana@example.com",
      "--",
      "exec",
      "hi"
    ])
    expect(run.code, run.stderr).toBe(0)
    const { args, env } = given(run)
    expect(args).toEqual([
      "-c",
      `model_providers.svc={ name = "svc-gateway", base_url = "http://127.0.0.1:9/v1", env_key = "SVC_GATEWAY_KEY", ` +
      `wire_api = "responses", http_headers = { "x-svc-tags" = "developer:ana@example.com" } }`,
      "-c",
      `model_provider="svc"`,
      "exec",
      "hi"
    ])
    expect(env["SVC_GATEWAY_KEY"]).toBe("sk-gw")
  })

  it("opencode: a whole config in OPENCODE_CONFIG_CONTENT, the model its default", async () => {
    const run = await cli([
      "launch",
      "opencode",
      ...URL_ARGS,
      "--key",
      "sk-gw",
      "--developer",
      "ana@example.com",
      "--model",
      "fake/coder",
      "--",
      "run",
      "hi"
    ])
    expect(run.code, run.stderr).toBe(0)
    const { args, env } = given(run)
    expect(args).toEqual(["run", "hi"])
    const config = JSON.parse(env["OPENCODE_CONFIG_CONTENT"]!)
    expect(config.model).toBe("svc-gateway/fake/coder")
    expect(config.provider["svc-gateway"].options).toEqual({
      baseURL: "http://127.0.0.1:9/v1",
      apiKey: "{env:SVC_GATEWAY_KEY}",
      headers: { "x-svc-tags": "developer:ana@example.com" }
    })
    expect(env["SVC_GATEWAY_KEY"]).toBe("sk-gw")
  })

  it("the client's exit code is the launcher's", async () => {
    const run = await cli(["launch", "codex", ...URL_ARGS, "--key", "k"], { FAKE_EXIT: "7" })
    expect(run.code).toBe(7)
  })

  it("refuses plainly: no key, a developer that cannot be a tag, an unknown client, a client not installed", async () => {
    const noKey = await cli(["launch", "claude", ...URL_ARGS])
    expect(noKey.code).toBe(2)
    expect(noKey.stderr).toContain("No gateway key: pass --key <key> or set SVC_GATEWAY_KEY")
    const badDeveloper = await cli(["launch", "claude", ...URL_ARGS, "--key", "k", "--developer", "ana smith"])
    expect(badDeveloper.code).toBe(2)
    expect(badDeveloper.stderr).toContain("Invalid --developer 'ana smith'")
    const unknown = await cli(["launch", "cursor", ...URL_ARGS, "--key", "k"])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain("cursor")
    const missing = await new Promise<Run>((resolve) =>
      execFile(process.execPath, [BIN, "launch", "opencode", ...URL_ARGS, "--key", "k"], {
        env: { PATH: "/usr/bin:/bin", HOME: tmpdir() }
      }, (error, stdout, stderr) => resolve({ code: Number(error?.code ?? 0), stdout, stderr }))
    )
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain("'opencode' is not on PATH. Install it (npm install -g opencode-ai)")
  })
})

describe("svc-gateway launch and statusline against a gateway", () => {
  let gw: TestGateway

  beforeAll(async () => {
    gw = await startGateway({ GATEWAY_LOG_FLUSH_INTERVAL: "20 millis" })
  })
  afterAll(() => gw?.close())

  it("makes a key in the org when given the admin token, and says how to keep it", async () => {
    const orgId = (await gw.admin("POST", "/orgs", { name: "launch-made" })).json.id as string
    const run = await cli(["launch", "claude", "--url", gw.url, "--org", orgId, "--developer", "bo@example.com"], {
      GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN
    })
    expect(run.code, run.stderr).toBe(0)
    const key = given(run).env["SVC_GATEWAY_KEY"]!
    expect(run.stderr).toContain(`in ${orgId}`)
    expect(run.stderr).toContain(`export SVC_GATEWAY_KEY=${key}`)
    const keys = (await gw.admin("GET", `/orgs/${orgId}/keys`)).json.data as Array<Record<string, unknown>>
    expect(keys).toHaveLength(1)
    expect(keys[0]).toMatchObject({ name: "claude via svc-gateway launch (bo@example.com)" })
    expect(keys[0]!["expires_at"]).not.toBeNull()
    const answered = await postChat(gw.url, { model: "local/echo", messages: [{ role: "user", content: "x" }] }, {
      key
    })
    expect(answered.status).toBe(200)
  })

  it("without --org, refuses when the gateway has several organizations, naming them", async () => {
    await gw.admin("POST", "/orgs", { name: "launch-second" })
    const run = await cli(["launch", "claude", "--url", gw.url], { GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN })
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(/The gateway has \d+ organizations: say which one the key is for with --org \(org_/)
  })

  it("statusline: the session's line from stdin's session_id; a line saying what is wrong otherwise, exit 0", async () => {
    const { key } = await gw.newKey()
    const response = await postChat(gw.url, { model: "local/echo", messages: [{ role: "user", content: "x" }] }, {
      key,
      headers: { "x-claude-code-session-id": "status-1" }
    })
    expect(response.status).toBe(200)
    const env = { SVC_GATEWAY_URL: gw.url, SVC_GATEWAY_KEY: key }
    const stdin = JSON.stringify({ session_id: "status-1", cwd: "/tmp" })
    await until("the session is logged", async () => (await cli(["statusline"], env, stdin)).stdout.includes("request"))
    expect((await cli(["statusline"], env, stdin)).stdout).toBe("svc-gateway · $0.0000 · 1 request · 0% cached\n")
    expect((await cli(["statusline", "--session", "status-1"], env)).stdout).toContain("1 request")

    const lines: Array<[string, Record<string, string>, string]> = [
      ["svc-gateway · no request logged yet", env, JSON.stringify({ session_id: "none-yet" })],
      ["svc-gateway · no session", env, "not json"],
      ["svc-gateway · key refused", { ...env, SVC_GATEWAY_KEY: "sk-wrong" }, stdin],
      ["svc-gateway · no key (SVC_GATEWAY_KEY)", { SVC_GATEWAY_URL: gw.url }, stdin],
      ["svc-gateway · unreachable at http://127.0.0.1:9", { ...env, SVC_GATEWAY_URL: "http://127.0.0.1:9" }, stdin]
    ]
    for (const [line, lineEnv, input] of lines) {
      const run = await cli(["statusline"], lineEnv, input)
      expect(run.code, line).toBe(0)
      expect(run.stdout.trim()).toBe(line)
    }
  })
})
