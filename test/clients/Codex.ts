/**
 * The real Codex, for `npm run test:clients`: a pinned release installed from npm into a cache folder
 * outside the repository (its native binary comes as the package's platform dependency, from the npm
 * registry, so nothing else is downloaded), and run as `codex exec` against a gateway with a config of
 * the run's own: a `[model_providers.svc]` on `<gateway>/v1` with `wire_api = "responses"`, analytics,
 * update checks and the features that fetch from the internet at start off (the curated plugins sync
 * reaches github.com otherwise), approvals never asked and the sandbox bypassed (it runs as root in a
 * throwaway folder). Home, work and temp folders are the run's own and removed after it. Nothing it does
 * may leave 127.0.0.1: its proxy variables point at a recording proxy that refuses every request, and a
 * run reports what tried to go out.
 */
import { execFileSync, spawn } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { homedir, tmpdir } from "node:os"
import { join } from "node:path"
import { proxyEnv, recordingProxy } from "./RecordingProxy.ts"

export const CODEX_VERSION = "0.169.0"

const cacheDir = join(homedir(), ".cache", "svc-gateway", "clients", `codex-${CODEX_VERSION}`)
const executable = join(cacheDir, "node_modules", ".bin", "codex")

/** The pinned Codex's executable, installed with npm when missing. */
export const ensureCodex = (): string => {
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
      `@openai/codex@${CODEX_VERSION}`
    ], {
      stdio: "inherit",
      timeout: 300_000
    })
  } catch (cause) {
    throw new Error(`Could not install @openai/codex@${CODEX_VERSION} from npm into ${cacheDir}: ${String(cause)}`, {
      cause
    })
  }
  if (!existsSync(executable)) throw new Error(`npm installed Codex, but ${executable} is not there`)
  return executable
}

/** Config lines that keep Codex off the network at start: no analytics, plugins, apps or update checks. */
export const CODEX_QUIET: ReadonlyArray<string> = [
  `[analytics]`,
  `enabled = false`,
  ``,
  `[features]`,
  `plugins = false`,
  `remote_plugin = false`,
  `plugin_sharing = false`,
  `apps = false`,
  `in_app_updates = false`,
  `api_key_model_discovery = false`,
  ``
]

/** The config Codex reads from its home: the gateway as a Responses provider, nothing else. */
export const codexConfig = (baseUrl: string, model: string): string =>
  [
    `model = ${JSON.stringify(model)}`,
    `model_provider = "svc"`,
    `check_for_update_on_startup = false`,
    ``,
    `[model_providers.svc]`,
    `name = "svc-gateway"`,
    `base_url = ${JSON.stringify(`${baseUrl}/v1`)}`,
    `env_key = "SVC_GATEWAY_API_KEY"`,
    `wire_api = "responses"`,
    ``,
    ...CODEX_QUIET
  ].join("\n")

export interface CodexRun {
  readonly exitCode: number | null
  /** The final answer (`codex exec` prints it on stdout). */
  readonly stdout: string
  readonly stderr: string
  /** What Codex tried to reach beyond 127.0.0.1 (`CONNECT github.com:443`), through the recording proxy. */
  readonly outbound: ReadonlyArray<string>
}

/** `codex exec <prompt>` against `baseUrl` with a gateway key, in an empty working folder. */
export const runCodex = async (options: {
  readonly baseUrl: string
  readonly apiKey: string
  readonly model: string
  readonly prompt: string
  readonly timeoutMs?: number
}): Promise<CodexRun> => {
  const codex = ensureCodex()
  const proxy = await recordingProxy()
  const root = mkdtempSync(join(tmpdir(), "svc-gateway-codex-"))
  const [home, work, temp] = ["home", "work", "tmp"].map((name) => join(root, name)) as [string, string, string]
  for (const dir of [home, work, temp]) mkdirSync(dir)
  writeFileSync(join(home, "config.toml"), codexConfig(options.baseUrl, options.model))
  const cleanup = async () => {
    rmSync(root, { recursive: true, force: true })
    await proxy.close()
  }
  return new Promise<CodexRun>((resolve, reject) => {
    const child = spawn(codex, [
      "exec",
      "--skip-git-repo-check",
      "--dangerously-bypass-approvals-and-sandbox",
      options.prompt
    ], {
      cwd: work,
      env: {
        PATH: process.env["PATH"] ?? "/usr/bin:/bin",
        HOME: home,
        CODEX_HOME: home,
        TMPDIR: temp,
        SVC_GATEWAY_API_KEY: options.apiKey,
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
