/**
 * `svc-gateway launch` with the real pinned clients (`npm run test:clients`): each client, found on
 * PATH, answers through the gateway with `local/echo`; its requests carry its own session id and the
 * developer's tag, so the gateway's sessions show whose they are; the user's own client config is the
 * same after the run; a key is made through the admin API when none is given; a client missing from
 * PATH gets the install command. `svc-gateway statusline` then prints the session's line as Claude Code
 * would show it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ADMIN_TOKEN, startGateway, type TestGateway } from "../utils/TestGateway.ts"
import { until } from "../utils/Until.ts"
import { ensureClaudeCode } from "./ClaudeCode.ts"
import { CODEX_QUIET, ensureCodex } from "./Codex.ts"
import { runLaunch } from "./LaunchRun.ts"
import { ensureOpenCode, OPENCODE_QUIET_ENV, OPENCODE_SEED } from "./OpenCode.ts"

const DEVELOPER = "ana@example.com"

/** Claude Code's settings the user already has; the launcher must leave them as they are. */
const CLAUDE_SETTINGS = JSON.stringify({ env: { DISABLE_TELEMETRY: "1" }, includeCoAuthoredBy: false }, null, 2)

/** Codex's config the user already has: quiet at start, and another provider as the default. */
const CODEX_CONFIG = [
  `model = "gpt-5-codex"`,
  `model_provider = "elsewhere"`,
  `check_for_update_on_startup = false`,
  ``,
  `[model_providers.elsewhere]`,
  `name = "elsewhere"`,
  `base_url = "http://127.0.0.1:9/v1"`,
  `wire_api = "responses"`,
  ``,
  ...CODEX_QUIET
].join("\n")

/** What Claude Code needs to stay off the network besides the gateway. */
const QUIET_CLAUDE = {
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  DISABLE_AUTOUPDATER: "1",
  DISABLE_TELEMETRY: "1",
  DISABLE_ERROR_REPORTING: "1"
}

describe("svc-gateway launch with the real clients", () => {
  let gw: TestGateway
  let key: string
  let orgId: string
  let claude: string
  let codex: string
  let opencode: string

  beforeAll(async () => {
    claude = ensureClaudeCode()
    codex = ensureCodex()
    opencode = ensureOpenCode()
    gw = await startGateway({ GATEWAY_LOG_FLUSH_INTERVAL: "20 millis" })
    ;({ key, orgId } = await gw.newKey())
  }, 360_000)
  afterAll(async () => {
    await gw?.close()
  })

  /** The org's session whose client's User-Agent starts with `client`, once the log has it. */
  const sessionOf = async (client: string) => {
    let found: Record<string, unknown> | undefined
    await until(`a ${client} session in the log`, async () => {
      const list = (await gw.admin("GET", `/orgs/${orgId}/sessions`)).json.data as Array<Record<string, unknown>>
      found = list.find((session) => String(session["client"]).startsWith(client))
      return found !== undefined
    })
    return found!
  }

  it("claude: answers through the gateway, tagged with the developer, the user's settings untouched", async () => {
    const run = await runLaunch({
      executable: claude,
      args: [
        "launch",
        "claude",
        "--url",
        gw.url,
        "--developer",
        DEVELOPER,
        "--model",
        "local/echo",
        "--",
        "-p",
        "say it back"
      ],
      env: { ...QUIET_CLAUDE, SVC_GATEWAY_KEY: key, ANTHROPIC_API_KEY: "sk-ant-the-users-own" },
      files: { ".claude/settings.json": CLAUDE_SETTINGS }
    })
    expect(run.exitCode, run.stderr).toBe(0)
    expect(run.stdout).toContain("say it back")
    expect(run.outbound).toEqual([])
    expect(run.filesAfter[".claude/settings.json"]).toBe(CLAUDE_SETTINGS)

    const session = await sessionOf("claude-cli")
    expect(session).toMatchObject({ developer: DEVELOPER, errors: 0, models: ["local/echo"] })

    // the status line, as Claude Code runs it: the session as JSON on stdin, the key in the environment
    const line = await runLaunch({
      executable: claude,
      args: ["statusline"],
      env: { SVC_GATEWAY_URL: gw.url, SVC_GATEWAY_KEY: key },
      stdin: JSON.stringify({ session_id: session["session_id"], model: { id: "local/echo" } })
    })
    expect(line.exitCode, line.stderr).toBe(0)
    expect(line.stdout.trim()).toBe(
      `svc-gateway · $0.0000 · ${session["requests"]} request${session["requests"] === 1 ? "" : "s"} · 0% cached`
    )
  })

  it("codex: answers through the gateway with a key the launcher made, the user's config untouched", async () => {
    const run = await runLaunch({
      executable: codex,
      args: [
        "launch",
        "codex",
        "--url",
        gw.url,
        "--org",
        orgId,
        "--developer",
        DEVELOPER,
        "--model",
        "local/echo",
        "--",
        "exec",
        "--skip-git-repo-check",
        "--dangerously-bypass-approvals-and-sandbox",
        "svc-gateway-launch-ok"
      ],
      env: { GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN },
      files: { ".codex/config.toml": CODEX_CONFIG }
    })
    expect(run.exitCode, run.stderr).toBe(0)
    expect(run.stdout.trim()).toBe("svc-gateway-launch-ok")
    expect(run.outbound).toEqual([])
    expect(run.filesAfter[".codex/config.toml"]).toBe(CODEX_CONFIG)
    expect(run.stderr).toMatch(/made key key_\w+ in org_\w+/)

    const session = await sessionOf("codex")
    expect(session).toMatchObject({ developer: DEVELOPER, errors: 0, models: ["local/echo"] })
    const keys = (await gw.admin("GET", `/orgs/${orgId}/keys`)).json.data as Array<{ id: string; name: string }>
    const made = keys.find((k) => k.name === `codex via svc-gateway launch (${DEVELOPER})`)
    expect(made).toBeDefined()
    expect(session["key_ids"]).toEqual([made!.id])
  })

  it("opencode: answers through the gateway under its own session, the user's config untouched", async () => {
    const own = JSON.stringify({ $schema: "https://opencode.ai/config.json", autoupdate: false, share: "disabled" })
    const files = { ...OPENCODE_SEED, ".config/opencode/opencode.json": own }
    const prompt = "Say svc-gateway-launch-opencode back."
    const run = await runLaunch({
      executable: opencode,
      args: [
        "launch",
        "opencode",
        "--url",
        gw.url,
        "--key",
        key,
        "--developer",
        DEVELOPER,
        "--model",
        "local/echo",
        "--",
        "run",
        "--auto"
      ],
      env: OPENCODE_QUIET_ENV,
      files,
      stdin: prompt
    })
    expect(run.exitCode, run.stderr).toBe(0)
    expect(run.stdout.trim()).toBe(prompt)
    expect(run.outbound).toEqual([])
    expect(run.filesAfter).toEqual(files)
    const session = await sessionOf("opencode")
    expect(String(session["session_id"])).toMatch(/^ses_/)
    // the session's title and its answer, both on the model the launcher set
    expect(session).toMatchObject({ developer: DEVELOPER, errors: 0, models: ["local/echo"], requests: 2 })
  })

  it("a client missing from PATH: the install command, and nothing run", async () => {
    const run = await runLaunch({
      executable: "/nonexistent/opencode",
      args: ["launch", "opencode", "--url", gw.url, "--key", key]
    })
    expect(run.exitCode).toBe(1)
    expect(run.stderr).toContain("'opencode' is not on PATH. Install it (npm install -g opencode-ai)")
  })
})
