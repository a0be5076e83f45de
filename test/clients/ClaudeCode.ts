/**
 * The real Claude Code, for `npm run test:clients`: a pinned release installed from npm into a cache
 * folder outside the repository (its native binary ships inside the npm package, so nothing else is
 * downloaded), and run in print mode against a gateway with a throwaway home, telemetry, updates and
 * other non-essential traffic off. Nothing it does may leave 127.0.0.1: its proxy variables point at a
 * recording proxy that refuses everything, and a run reports what tried to go out.
 */
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { clientCache, type ClientRun, collectRun, npmInstall, throwawayFolders } from "./ChildRun.ts"
import { proxyEnv, recordingProxy } from "./RecordingProxy.ts"

export const CLAUDE_CODE_VERSION = "2.1.328"

const cacheDir = clientCache("claude-code", CLAUDE_CODE_VERSION)
const executable = join(cacheDir, "node_modules", ".bin", "claude")

/** The pinned Claude Code's executable, installed with npm when missing. */
export const ensureClaudeCode = (): string => {
  if (existsSync(executable)) return executable
  npmInstall(cacheDir, `@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}`)
  if (!existsSync(executable)) throw new Error(`npm installed Claude Code, but ${executable} is not there`)
  return executable
}

/** `claude -p <prompt>` against `baseUrl` with a gateway key, in an empty working folder. */
export const runClaude = async (options: {
  readonly baseUrl: string
  readonly apiKey: string
  readonly model: string
  readonly prompt: string
  readonly extraArgs?: ReadonlyArray<string>
  /**
   * Claude Code commands run first, in the same home and folder (`["mcp", "add", ...]`), as a person
   * sets it up before asking; a setup that fails is the run's result.
   */
  readonly setup?: ReadonlyArray<ReadonlyArray<string>>
  /** More environment for Claude Code (its own settings). */
  readonly env?: Readonly<Record<string, string>>
  readonly timeoutMs?: number
}): Promise<ClientRun> => {
  const claude = ensureClaudeCode()
  const proxy = await recordingProxy()
  // home, work folder and temp folder are the run's own, removed when it ends: nothing it writes stays
  const { home, remove, temp, work } = throwawayFolders("svc-gateway-claude-")
  const cleanup = async () => {
    remove()
    await proxy.close()
  }
  const env = {
    PATH: process.env["PATH"] ?? "/usr/bin:/bin",
    HOME: home,
    TMPDIR: temp,
    ANTHROPIC_BASE_URL: options.baseUrl,
    ANTHROPIC_API_KEY: options.apiKey,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    ...proxyEnv(proxy.url),
    ...options.env
  }
  const run = (args: ReadonlyArray<string>) =>
    collectRun(
      spawn(claude, [...args], { cwd: work, env, stdio: ["ignore", "pipe", "pipe"] }),
      proxy,
      options.timeoutMs
    )
  for (const args of options.setup ?? []) {
    const done = await run(args)
    if (done.exitCode !== 0) {
      await cleanup()
      return { ...done, stderr: `claude ${args.join(" ")} failed:\n${done.stderr}` }
    }
  }
  return run(["-p", options.prompt, "--model", options.model, ...(options.extraArgs ?? [])]).finally(cleanup)
}
