/**
 * `npm run bench:memory`: the gateway's resident memory at ready, on each store, as `npm start` runs it
 * (the start script's Node flags and the bundle) with nothing else in the process: on the embedded store
 * in a new folder (the first start, which creates it) and again on the same folder (a restart); then
 * the same on PostgreSQL when `BENCH_DATABASE_URL` (default the local server) answers, in a database of
 * the run's own. The figures under load are `npm run bench`'s (`BENCH_DATABASE_URL=off` for embedded).
 */
import { spawn } from "node:child_process"
import { closeSync, mkdtempSync, openSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { freshDatabase } from "./database.ts"
import { gatewayEntry, startNodeFlags, waitReady } from "./gateway.ts"
import { freePort, memoryMiB, sleep, stopAll, stopChild, track } from "./proc.ts"

const repoRoot = fileURLToPath(new URL("..", import.meta.url))
/** After /ready answers, the start's last work (timers, the first flush) settles. */
const SETTLE_MS = 1_000

/** One start: resident and peak MiB once ready. */
const measureStart = async (env: Readonly<Record<string, string>>, dataDir: string) => {
  const port = await freePort()
  const logFile = join(dataDir, "..", `gateway-${port}.log`)
  const logFd = openSync(logFile, "w")
  const child = track(spawn(process.execPath, [...startNodeFlags(), gatewayEntry()], {
    cwd: repoRoot,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      GATEWAY_DATA_DIR: dataDir,
      GATEWAY_ADMIN_TOKEN: "bench-memory",
      ...env
    },
    stdio: ["ignore", logFd, logFd]
  }))
  closeSync(logFd)
  try {
    await waitReady(child, `http://127.0.0.1:${port}`, logFile)
    await sleep(SETTLE_MS)
    return { rss: memoryMiB(child.pid, "VmRSS"), peak: memoryMiB(child.pid) }
  } finally {
    await stopChild(child, 5_000)
  }
}

const line = (store: string, start: string, figures: { readonly rss: number | null; readonly peak: number | null }) =>
  `${store.padEnd(22)} ${start.padEnd(8)} ${String(figures.rss?.toFixed(1) ?? "-").padStart(8)} MiB resident  ` +
  `${String(figures.peak?.toFixed(1) ?? "-").padStart(8)} MiB peak`

const main = async () => {
  const temp = mkdtempSync(join(tmpdir(), "svc-gateway-memory-"))
  try {
    console.log("the gateway at ready, as npm start runs it")
    const dataDir = join(temp, "data")
    console.log(line("embedded (SQLite)", "first", await measureStart({}, dataDir)))
    console.log(line("embedded (SQLite)", "restart", await measureStart({}, dataDir)))
    const url = process.env["BENCH_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"
    if (url === "off") return
    const database = await freshDatabase(url).catch((error: unknown) => {
      console.log(`PostgreSQL at ${url} not measured: ${error instanceof Error ? error.message : String(error)}`)
      return undefined
    })
    if (database === undefined) return
    try {
      const env = { DATABASE_URL: database.url }
      console.log(line("PostgreSQL", "first", await measureStart(env, join(temp, "unused"))))
      console.log(line("PostgreSQL", "restart", await measureStart(env, join(temp, "unused"))))
    } finally {
      await database.drop()
    }
  } finally {
    await stopAll()
    rmSync(temp, { recursive: true, force: true })
  }
}

await main()
