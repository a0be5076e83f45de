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
import { spawn } from "node:child_process"
import { existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { clientCache, type ClientRun, collectRun, npmInstall, throwawayFolders } from "./ChildRun.ts"
import { proxyEnv, recordingProxy } from "./RecordingProxy.ts"

export const CODEX_VERSION = "0.169.0"

const cacheDir = clientCache("codex", CODEX_VERSION)
const executable = join(cacheDir, "node_modules", ".bin", "codex")

/** The pinned Codex's executable, installed with npm when missing. */
export const ensureCodex = (): string => {
  if (existsSync(executable)) return executable
  npmInstall(cacheDir, `@openai/codex@${CODEX_VERSION}`)
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
export const codexConfig = (baseUrl: string, model: string, websockets = false): string =>
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
    ...(websockets ? [`supports_websockets = true`] : []),
    ``,
    ...CODEX_QUIET
  ].join("\n")

/** `codex exec <prompt>` against `baseUrl` with a gateway key, in an empty working folder. */
export const runCodex = async (options: {
  readonly baseUrl: string
  readonly apiKey: string
  readonly model: string
  readonly prompt: string
  /** `supports_websockets = true` on the provider: Codex talks to `/v1/responses` over a WebSocket. */
  readonly websockets?: boolean
  readonly timeoutMs?: number
}): Promise<ClientRun> => {
  const codex = ensureCodex()
  const proxy = await recordingProxy()
  const { home, remove, temp, work } = throwawayFolders("svc-gateway-codex-")
  writeFileSync(join(home, "config.toml"), codexConfig(options.baseUrl, options.model, options.websockets))
  const cleanup = async () => {
    remove()
    await proxy.close()
  }
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
  return collectRun(child, proxy, options.timeoutMs).finally(cleanup)
}
