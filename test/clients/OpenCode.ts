/**
 * The real OpenCode, for `npm run test:clients`: a pinned release installed from npm into a cache folder
 * outside the repository (its native binary comes as the package's platform dependency, from the npm
 * registry, so nothing else is downloaded; the OpenAI-compatible provider package is bundled inside it),
 * and run as `opencode run` against a gateway with a config of the run's own, passed inline in
 * OPENCODE_CONFIG_CONTENT: one provider `svc` on `<gateway>/v1` (`@ai-sdk/openai-compatible`, chat
 * completions) and only it, sharing and updates off, the models.dev catalogue not fetched. Home, work
 * and temp folders are the run's own and removed after it. Nothing it does may leave 127.0.0.1: its
 * proxy variables point at a recording proxy that refuses every request, and a run reports what tried
 * to go out.
 */
import { execFileSync, spawn } from "node:child_process"
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { clientCache, type ClientRun, collectRun, npmInstall, throwawayFolders } from "./ChildRun.ts"
import { proxyEnv, recordingProxy } from "./RecordingProxy.ts"

export const OPENCODE_VERSION = "1.18.33"

const cacheDir = clientCache("opencode", OPENCODE_VERSION)
const executable = join(cacheDir, "node_modules", ".bin", "opencode")
const packageDir = join(cacheDir, "node_modules", "opencode-ai")

/** The provider id the gateway has in OpenCode's config: models are `svc/<gateway model>`. */
export const OPENCODE_PROVIDER = "svc"

const installedVersion = (): string | undefined => {
  try {
    return execFileSync(executable, ["--version"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 30_000
    }).trim()
  } catch {
    return undefined
  }
}

let checked = false

/** The pinned OpenCode's executable, installed with npm when missing. */
export const ensureOpenCode = (): string => {
  if (checked || (existsSync(executable) && installedVersion() === OPENCODE_VERSION)) {
    checked = true
    return executable
  }
  npmInstall(cacheDir, `opencode-ai@${OPENCODE_VERSION}`)
  // The package's `bin/opencode.exe` is a placeholder until its postinstall links the platform binary
  // (opencode-linux-x64, installed as an optional dependency) in its place; npm may have skipped install
  // scripts, and the script finds the binary already installed, offline.
  if (installedVersion() !== OPENCODE_VERSION) {
    execFileSync(process.execPath, ["postinstall.mjs"], { cwd: packageDir, stdio: "inherit", timeout: 60_000 })
  }
  const version = installedVersion()
  if (version !== OPENCODE_VERSION) {
    throw new Error(`npm installed OpenCode, but ${executable} --version says ${String(version)}`)
  }
  checked = true
  return executable
}

/**
 * OpenCode's config for a gateway (what OPENCODE_CONFIG_CONTENT or a file named by OPENCODE_CONFIG
 * holds): the gateway as the one OpenAI-compatible provider `svc`, `model` (a gateway model such as
 * `local/echo`) its model for the session and for titles. `apiKey` is written as given: pass
 * `{env:NAME}` to have OpenCode read it from that variable instead. `headers` go on every request.
 */
export const openCodeConfig = (options: {
  readonly baseUrl: string
  readonly apiKey: string
  readonly model: string
  readonly headers?: Readonly<Record<string, string>>
}) => ({
  $schema: "https://opencode.ai/config.json",
  model: `${OPENCODE_PROVIDER}/${options.model}`,
  small_model: `${OPENCODE_PROVIDER}/${options.model}`,
  enabled_providers: [OPENCODE_PROVIDER],
  autoupdate: false,
  share: "disabled",
  provider: {
    [OPENCODE_PROVIDER]: {
      npm: "@ai-sdk/openai-compatible",
      name: "svc-gateway",
      options: {
        baseURL: `${options.baseUrl}/v1`,
        apiKey: options.apiKey,
        ...(options.headers === undefined ? {} : { headers: { ...options.headers } })
      },
      models: { [options.model]: { name: options.model } }
    }
  }
})

/**
 * OpenCode installs `@opencode-ai/plugin` with npm, in the background, into every config folder it
 * reads (its global one, `~/.config/opencode`, always) unless that folder's package-lock.json already
 * lists it over a node_modules folder: a throwaway home gets such a lock, so nothing reaches for the
 * npm registry (OPENCODE_PURE and OPENCODE_DISABLE_DEFAULT_PLUGINS do not stop it).
 */
export const OPENCODE_SEED: Readonly<Record<string, string>> = {
  ".config/opencode/node_modules/.keep": "",
  ".config/opencode/package-lock.json": JSON.stringify({
    packages: { "": { dependencies: { "@opencode-ai/plugin": OPENCODE_VERSION } } }
  })
}

const seedConfigFolder = (home: string) => {
  for (const [path, text] of Object.entries(OPENCODE_SEED)) {
    mkdirSync(dirname(join(home, path)), { recursive: true })
    writeFileSync(join(home, path), text)
  }
}

/** What keeps OpenCode off the network at start: the models.dev catalogue (models.opencode.ai) above all. */
export const OPENCODE_QUIET_ENV: Readonly<Record<string, string>> = {
  OPENCODE_DISABLE_MODELS_FETCH: "1",
  OPENCODE_DISABLE_AUTOUPDATE: "1",
  OPENCODE_DISABLE_SHARE: "1",
  OPENCODE_DISABLE_LSP_DOWNLOAD: "1"
}

/** `opencode run <prompt>` against `baseUrl` with a gateway key, in an empty working folder. */
export const runOpenCode = async (options: {
  readonly baseUrl: string
  readonly apiKey: string
  readonly model: string
  readonly prompt: string
  readonly headers?: Readonly<Record<string, string>>
  readonly timeoutMs?: number
}): Promise<ClientRun> => {
  const opencode = ensureOpenCode()
  const proxy = await recordingProxy()
  const { home, remove, temp, work } = throwawayFolders("svc-gateway-opencode-")
  seedConfigFolder(home)
  const cleanup = async () => {
    remove()
    await proxy.close()
  }
  // `--auto` approves what the agent's permissions would ask about (headless, they are refused
  // otherwise). The prompt goes on stdin, which `opencode run` reads whole when it is not a terminal:
  // it would put a message argument that holds a space in double quotes.
  const child = spawn(opencode, ["run", "--auto", "--model", `${OPENCODE_PROVIDER}/${options.model}`], {
    cwd: work,
    env: {
      PATH: process.env["PATH"] ?? "/usr/bin:/bin",
      HOME: home,
      TMPDIR: temp,
      OPENCODE_CONFIG_CONTENT: JSON.stringify(openCodeConfig(options)),
      // the models.dev catalogue (models.opencode.ai) is fetched at start otherwise
      OPENCODE_DISABLE_MODELS_FETCH: "1",
      OPENCODE_DISABLE_AUTOUPDATE: "1",
      OPENCODE_DISABLE_SHARE: "1",
      OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
      ...proxyEnv(proxy.url)
    },
    stdio: ["pipe", "pipe", "pipe"]
  })
  child.stdin.on("error", () => {}) // an OpenCode that exits before reading it is reported by its exit code
  child.stdin.end(options.prompt)
  return collectRun(child, proxy, options.timeoutMs).finally(cleanup)
}
