/**
 * The gateway under test, for the bench: start `src/main.ts` as a child process with a fresh data dir and
 * a config whose only provider is the fake upstream, wait for `GET /ready`, then create an org and an API
 * key through the admin API. Every unexpected answer becomes an error that quotes what the gateway said.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { atCleanup, freePort, httpCall, isRunning, sleep, stopChild, track } from "./proc.ts"

/** One gateway configuration to benchmark; `env` is added on top of the base environment. */
export interface GatewayVariant {
  readonly name: string
  readonly env: Readonly<Record<string, string>>
  /** Node flags instead of the start script's (heap and GC settings to compare in one run). */
  readonly nodeFlags?: ReadonlyArray<string>
  /**
   * Another build to run instead of this one's (`BENCH_BASELINE_ENTRY`: an older commit's bundle); it
   * gets only the chat-completions provider, which every build knows, unless `everyProvider` says so.
   */
  readonly entry?: string
  /** The Anthropic and OpenAI providers too, for a build given as `entry` that has them (`bench/cpu.ts`). */
  readonly everyProvider?: boolean
  /** Left out of a run unless `BENCH_TARGETS` names it. */
  readonly onlyWhenNamed?: boolean
  /** A program and its arguments to run `node` under (`bench/instructions.ts`: valgrind). */
  readonly command?: ReadonlyArray<string>
  /** How long the start may take (default a minute; a process under valgrind needs several). */
  readonly readyTimeoutMs?: number
}

/** The variants a run measures: those `only` (`BENCH_TARGETS`) names, or when it names none, all but the named-only. */
export const chosenVariants = (
  variants: ReadonlyArray<GatewayVariant>,
  only: ReadonlyArray<string>
): ReadonlyArray<GatewayVariant> =>
  variants.filter((v) => only.includes(v.name) || (only.length === 0 && v.onlyWhenNamed !== true))

export const ADMIN_TOKEN = "bench-admin-token"
const READY_TIMEOUT_MS = 60_000

export interface RunningGateway {
  readonly variant: GatewayVariant
  readonly child: ChildProcess
  readonly baseUrl: string
  readonly apiKey: string
  readonly logFile: string
  readonly stop: () => Promise<void>
}

/**
 * The command `npm start` runs (`node <flags> <entry>`, from package.json's `start` script), so the bench
 * measures the process a deployment runs: the bundle `npm run build` writes (`npm run bench` builds it
 * first), with the heap flags that change its memory and speed.
 */
const startCommand = (() => {
  const manifest: unknown = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"))
  const scripts = typeof manifest === "object" && manifest !== null && "scripts" in manifest
    ? manifest.scripts
    : undefined
  const start = typeof scripts === "object" && scripts !== null && "start" in scripts ? scripts.start : undefined
  const words = typeof start === "string" ? start.trim().split(/\s+/) : []
  if (words[0] !== "node" || words.length < 2) {
    throw new Error(`package.json's start script is not 'node ... <entry>': ${String(start)}`)
  }
  return { flags: words.slice(1, -1), entry: words[words.length - 1]! }
})()

/** The gateway's entry, relative to the repo root; BENCH_GATEWAY_ENTRY swaps it (e.g. for a stand-in). */
export const gatewayEntry = (): string => process.env["BENCH_GATEWAY_ENTRY"] ?? startCommand.entry

/** The Node flags of the start script. */
export const startNodeFlags = (): ReadonlyArray<string> => startCommand.flags

export const gatewayAvailable = (repoRoot: string): boolean => existsSync(resolve(repoRoot, gatewayEntry()))

/** The last `lines` lines of a log file, for error reports. */
export const logTail = (file: string, lines = 30): string => {
  try {
    return readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n")
  } catch {
    return "(no log)"
  }
}

const describe = (method: string, path: string, status: number, body: string): string =>
  `${method} ${path} answered ${status}: ${body.length > 500 ? `${body.slice(0, 500)}...` : body}`

const parseObject = (body: string): Record<string, unknown> | undefined => {
  try {
    const parsed: unknown = JSON.parse(body)
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}

/** POST to the admin API, expecting 201 and a JSON object with the given string fields. */
const adminPost = async (
  baseUrl: string,
  path: string,
  body: unknown,
  fields: ReadonlyArray<string>
): Promise<Record<string, unknown>> => {
  const answer = await httpCall(`${baseUrl}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    body: JSON.stringify(body)
  })
  const parsed = parseObject(answer.body)
  if (answer.status !== 201 || parsed === undefined) throw new Error(describe("POST", path, answer.status, answer.body))
  const missing = fields.filter((field) => typeof parsed[field] !== "string")
  if (missing.length > 0) {
    throw new Error(
      `${describe("POST", path, answer.status, answer.body)} (missing string field(s): ${missing.join(", ")})`
    )
  }
  return parsed
}

export const waitReady = async (
  child: ChildProcess,
  baseUrl: string,
  logFile: string,
  timeoutMs = READY_TIMEOUT_MS
): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  let last = "no answer yet"
  while (Date.now() < deadline) {
    if (!isRunning(child)) {
      throw new Error(
        `gateway exited before it was ready (code ${String(child.exitCode)}, signal ${
          String(child.signalCode)
        }); log tail:\n${logTail(logFile)}`
      )
    }
    try {
      const answer = await httpCall(`${baseUrl}/ready`, { timeoutMs: 2_000 })
      if (answer.status === 200) return
      last = describe("GET", "/ready", answer.status, answer.body)
    } catch (error) {
      last = `GET /ready: ${error instanceof Error ? error.message : String(error)}`
    }
    await sleep(200)
  }
  throw new Error(
    `gateway not ready within ${timeoutMs / 1000} s (last: ${last}); log tail:\n${logTail(logFile)}`
  )
}

/**
 * Start one gateway variant against the fake upstream and provision an API key. The child's stdout and
 * stderr go to `<resultsDir>/<variant>.log`. On any failure the child is stopped before rethrowing.
 */
export const startGateway = async (options: {
  readonly repoRoot: string
  readonly resultsDir: string
  readonly upstreamPort: number
  readonly variant: GatewayVariant
}): Promise<RunningGateway> => {
  const { repoRoot, resultsDir, upstreamPort, variant } = options
  const tempDir = mkdtempSync(join(tmpdir(), `svc-gateway-bench-${variant.name}-`))
  const removeTemp = (): void => rmSync(tempDir, { recursive: true, force: true })
  atCleanup(removeTemp)
  const configFile = join(tempDir, "config.json")
  writeFileSync(
    configFile,
    JSON.stringify({
      providers: {
        bench: { adapter: "openai-compatible", base_url: `http://127.0.0.1:${upstreamPort}/v1` },
        ...(variant.entry === undefined || variant.everyProvider === true
          ? {
            benchanthropic: { adapter: "anthropic", base_url: `http://127.0.0.1:${upstreamPort}` },
            benchopenai: { adapter: "openai", base_url: `http://127.0.0.1:${upstreamPort}/v1` }
          }
          : {})
      }
    })
  )
  const port = await freePort()
  const baseUrl = `http://127.0.0.1:${port}`
  // cpu.ts, guard.ts and interference.ts start gateways without run.ts, which makes this folder
  mkdirSync(resultsDir, { recursive: true })
  const logFile = join(resultsDir, `${variant.name}.log`)
  const logFd = openSync(logFile, "w")
  const entry = variant.entry ?? gatewayEntry()
  const command = [...(variant.command ?? []), process.execPath]
  const child = track(
    spawn(command[0]!, [...command.slice(1), ...(variant.nodeFlags ?? startNodeFlags()), entry], {
      cwd: repoRoot,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: "127.0.0.1",
        GATEWAY_DATA_DIR: join(tempDir, "data"),
        GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
        GATEWAY_CONFIG: configFile,
        GATEWAY_BOOTSTRAP: "false",
        ...variant.env
      },
      stdio: ["ignore", logFd, logFd]
    })
  )
  closeSync(logFd)
  const stop = async (): Promise<void> => {
    await stopChild(child, 5_000)
    removeTemp()
  }
  try {
    await waitReady(child, baseUrl, logFile, variant.readyTimeoutMs)
    const org = await adminPost(baseUrl, "/admin/v1/orgs", { name: "bench" }, ["id", "name", "created_at"])
    const key = await adminPost(
      baseUrl,
      `/admin/v1/orgs/${encodeURIComponent(String(org["id"]))}/keys`,
      { name: "bench" },
      ["id", "name", "key", "prefix", "created_at"]
    )
    return { variant, child, baseUrl, apiKey: String(key["key"]), logFile, stop }
  } catch (error) {
    await stop()
    throw error
  }
}
