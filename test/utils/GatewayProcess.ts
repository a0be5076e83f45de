/**
 * The real gateway as a child process (`node src/main.ts`, or the bundle) on a free loopback port with a fresh data
 * folder, for tests of what only a process shows: signals, draining, what survives the exit. The store
 * is that folder's embedded store (SQLite), or the server named by DATABASE_URL when the suite runs on it.
 */
import { spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fakeGatewayEnv, type FakeUpstream, refusedUrl } from "./FakeUpstream.ts"
import { ADMIN_TOKEN } from "./TestGateway.ts"

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Rejects when `promise` has not settled within `ms`. */
export const within = <A>(ms: number, what: string, promise: Promise<A>): Promise<A> =>
  Promise.race([promise, sleep(ms).then(() => Promise.reject(new Error(`timed out after ${ms} ms: ${what}`)))])

export interface GatewayProcess {
  readonly url: string
  readonly port: number
  readonly dataDir: string
  readonly proc: ReturnType<typeof spawn>
  readonly exited: Promise<
    { readonly code: number | null; readonly signal: NodeJS.Signals | null; readonly at: number }
  >
  /** Everything the process printed so far. */
  readonly output: () => string
  readonly orgId: string
  readonly key: string
}

/** Starts the gateway against `upstream`, waits until it listens, and provisions an org and a key. */
export const startGatewayProcess = async (
  upstream: FakeUpstream,
  env: Readonly<Record<string, string>> = {},
  /** The file Node runs, relative to the repo root: the sources, or a bundle of them. */
  entry = "src/main.ts"
): Promise<GatewayProcess> => {
  const port = Number(new URL(await refusedUrl()).port)
  const dataDir = mkdtempSync(join(tmpdir(), "svc-gateway-process-"))
  let output = ""
  const settings: Record<string, string> = {
    PORT: String(port),
    HOST: "127.0.0.1",
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
    GATEWAY_BOOTSTRAP: "false",
    GATEWAY_LOG_RETENTION: "0 seconds",
    GATEWAY_MODELS_REFRESH: "0 seconds",
    ...fakeGatewayEnv(upstream),
    ...env
  }
  for (const name of ["PATH", "HOME", "TMPDIR", "DATABASE_URL"]) {
    const value = process.env[name]
    // a test's own store (its own PostgreSQL) wins over the suite's
    if (value !== undefined && !(name in env)) settings[name] = value
  }
  const proc = spawn(process.execPath, [entry], {
    cwd: join(import.meta.dirname, "../.."),
    env: settings,
    stdio: ["ignore", "pipe", "pipe"]
  })
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    proc.once("exit", (code, signal) => resolve({ code, signal, at: Date.now() }))
  )
  const listening = new Promise<void>((resolve, reject) => {
    proc.stdout.on("data", (data: Buffer) => {
      output += data.toString()
      if (output.includes("svc-gateway listening on")) resolve()
    })
    proc.stderr.on("data", (data: Buffer) => (output += data.toString()))
    void exited.then(({ code }) => reject(new Error(`the server exited early (${code}):\n${output}`)))
  })
  await within(45_000, "server start", listening).catch((error: Error) => {
    proc.kill("SIGKILL")
    throw new Error(`${error.message}\n${output}`)
  })
  const admin = (path: string, body: unknown) =>
    fetch(`http://127.0.0.1:${port}/admin/v1${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json", connection: "close" },
      body: JSON.stringify(body)
    }).then((r) => r.json() as Promise<{ id: string; key: string }>)
  const org = await admin("/orgs", { name: "process" })
  const { key } = await admin(`/orgs/${org.id}/keys`, { name: "process" })
  return { url: `http://127.0.0.1:${port}`, port, dataDir, proc, exited, output: () => output, orgId: org.id, key }
}
