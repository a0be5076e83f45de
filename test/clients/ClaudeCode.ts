/**
 * The real Claude Code, for `npm run test:clients`: a pinned release installed from npm into a cache
 * folder outside the repository (its native binary ships inside the npm package, so nothing else is
 * downloaded), and run in print mode against a gateway with a throwaway home, telemetry, updates and
 * other non-essential traffic off. Nothing it does may leave 127.0.0.1: its proxy variables point at a
 * recording proxy that refuses everything, and a run reports what tried to go out.
 */
import { execFileSync, spawn } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { homedir, tmpdir } from "node:os"
import { join } from "node:path"
import { proxyEnv, recordingProxy } from "./RecordingProxy.ts"

export const CLAUDE_CODE_VERSION = "2.1.328"

const cacheDir = join(homedir(), ".cache", "svc-gateway", "clients", `claude-code-${CLAUDE_CODE_VERSION}`)
const executable = join(cacheDir, "node_modules", ".bin", "claude")

/** The pinned Claude Code's executable, installed with npm when missing. */
export const ensureClaudeCode = (): string => {
  if (existsSync(executable)) return executable
  mkdirSync(cacheDir, { recursive: true })
  try {
    execFileSync("npm", [
      "install",
      "--prefix",
      cacheDir,
      "--no-save",
      "--no-audit",
      "--no-fund",
      `@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}`
    ], { stdio: "inherit", timeout: 300_000 })
  } catch (cause) {
    throw new Error(
      `Could not install @anthropic-ai/claude-code@${CLAUDE_CODE_VERSION} from npm into ${cacheDir}: ${String(cause)}`,
      { cause }
    )
  }
  if (!existsSync(executable)) throw new Error(`npm installed Claude Code, but ${executable} is not there`)
  return executable
}

export interface ClaudeRun {
  readonly exitCode: number | null
  readonly stdout: string
  readonly stderr: string
  /** What Claude Code tried to reach beyond 127.0.0.1, through the recording proxy. */
  readonly outbound: ReadonlyArray<string>
}

/** `claude -p <prompt>` against `baseUrl` with a gateway key, in an empty working folder. */
export const runClaude = async (options: {
  readonly baseUrl: string
  readonly apiKey: string
  readonly model: string
  readonly prompt: string
  readonly extraArgs?: ReadonlyArray<string>
  readonly timeoutMs?: number
}): Promise<ClaudeRun> => {
  const claude = ensureClaudeCode()
  const proxy = await recordingProxy()
  // home, work folder and temp folder are the run's own, removed when it ends: nothing it writes stays
  const root = mkdtempSync(join(tmpdir(), "svc-gateway-claude-"))
  const [home, work, temp] = ["home", "work", "tmp"].map((name) => join(root, name)) as [string, string, string]
  for (const dir of [home, work, temp]) mkdirSync(dir)
  const cleanup = async () => {
    rmSync(root, { recursive: true, force: true })
    await proxy.close()
  }
  return new Promise<ClaudeRun>((resolve, reject) => {
    const child = spawn(claude, ["-p", options.prompt, "--model", options.model, ...(options.extraArgs ?? [])], {
      cwd: work,
      env: {
        PATH: process.env["PATH"] ?? "/usr/bin:/bin",
        HOME: home,
        TMPDIR: temp,
        ANTHROPIC_BASE_URL: options.baseUrl,
        ANTHROPIC_API_KEY: options.apiKey,
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_AUTOUPDATER: "1",
        DISABLE_TELEMETRY: "1",
        DISABLE_ERROR_REPORTING: "1",
        ...proxyEnv(proxy.url)
      },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (part: Buffer) => (stdout += part.toString("utf8")))
    child.stderr.on("data", (part: Buffer) => (stderr += part.toString("utf8")))
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 90_000)
    child.on("error", (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.on("close", (exitCode) => {
      clearTimeout(timer)
      resolve({ exitCode, stdout, stderr, outbound: [...proxy.seen] })
    })
  }).finally(cleanup)
}
