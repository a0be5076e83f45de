/**
 * Process and HTTP helpers for the bench orchestrator: fork the bench's own children, track every child
 * so all of them are stopped at the end (or on failure), find a free loopback port, read a process's
 * peak RSS and CPU time from /proc, and make small one-off HTTP calls (no keep-alive) for setup and sanity checks.
 */
import { type ChildProcess, fork } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import http from "node:http"
import net from "node:net"

const live = new Set<ChildProcess>()

export const isRunning = (child: ChildProcess): boolean => child.exitCode === null && child.signalCode === null

/** Remember a child so `stopAll` (and the exit hook) will stop it. */
export const track = (child: ChildProcess): ChildProcess => {
  live.add(child)
  child.once("exit", () => live.delete(child))
  return child
}

/** Resolves when the child exits, or after `ms` with false. */
export const waitExit = (child: ChildProcess, ms: number): Promise<boolean> =>
  new Promise((resolve) => {
    if (!isRunning(child)) return resolve(true)
    const timer = setTimeout(() => resolve(false), ms)
    child.once("exit", () => {
      clearTimeout(timer)
      resolve(true)
    })
  })

/** SIGTERM, then SIGKILL if the child is still there after `graceMs`. */
export const stopChild = async (child: ChildProcess, graceMs = 3_000): Promise<void> => {
  if (child.connected) child.disconnect()
  if (!isRunning(child)) return
  child.kill("SIGTERM")
  if (await waitExit(child, graceMs)) return
  child.kill("SIGKILL")
  await waitExit(child, 2_000)
}

const finalizers: Array<() => void> = []

/** Run `fn` in `stopAll`, after the children are gone (e.g. remove a temp dir). */
export const atCleanup = (fn: () => void): void => {
  finalizers.push(fn)
}

let stopping = false

/** True once `stopAll` has begun (a signal or the end of the run). */
export const isStopping = (): boolean => stopping

export const stopAll = async (): Promise<void> => {
  stopping = true
  await Promise.all([...live].map((child) => stopChild(child)))
  for (const fn of finalizers.splice(0)) {
    try {
      fn()
    } catch {
      // best effort: a leftover temp dir is not worth failing the run over
    }
  }
}

// Last resort: if the orchestrator exits without cleaning up, do not leave children behind.
process.once("exit", () => {
  for (const child of live) if (isRunning(child)) child.kill("SIGKILL")
})

/** Fork a bench script (Node runs the TypeScript itself) with an IPC channel (structured-clone messages). */
export const forkScript = (script: string, args: ReadonlyArray<string>, cwd: string): ChildProcess =>
  track(fork(script, [...args], {
    cwd,
    execArgv: [],
    serialization: "advanced",
    stdio: ["ignore", "inherit", "inherit", "ipc"]
  }))

/** Wait for the first IPC message a child sends that passes `accept`, failing if it exits first. */
export const nextMessage = <A>(
  child: ChildProcess,
  accept: (message: unknown) => A | undefined,
  timeoutMs: number,
  what: string
): Promise<A> =>
  new Promise((resolve, reject) => {
    const cleanup = (): void => {
      clearTimeout(timer)
      child.off("message", onMessage)
      child.off("exit", onExit)
    }
    const onMessage = (message: unknown): void => {
      const value = accept(message)
      if (value === undefined) return
      cleanup()
      resolve(value)
    }
    const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
      cleanup()
      reject(new Error(`${what}: child exited (code ${String(code)}, signal ${String(signal)})`))
    }
    const timer = setTimeout(() => {
      cleanup()
      reject(new Error(`${what}: no answer within ${timeoutMs} ms`))
    }, timeoutMs)
    child.on("message", onMessage)
    child.once("exit", onExit)
  })

/** Start a bench server child and wait for the port it reports. */
export const startServerChild = async (script: string, args: ReadonlyArray<string>, cwd: string): Promise<{
  readonly child: ChildProcess
  readonly port: number
}> => {
  const child = forkScript(script, args, cwd)
  const port = await nextMessage(
    child,
    (message) =>
      typeof message === "object" && message !== null && "type" in message && message.type === "listening" &&
        "port" in message && typeof message.port === "number"
        ? message.port
        : undefined,
    30_000,
    `start ${script}`
  )
  return { child, port }
}

/** A loopback port that was free a moment ago (for children that need the port up front). */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => (port > 0 ? resolve(port) : reject(new Error("no free port"))))
    })
  })

/** A memory figure of a live process from /proc/<pid>/status, in MiB (VmHWM = peak RSS, VmRSS = now). */
export const memoryMiB = (pid: number | undefined, field: "VmHWM" | "VmRSS" = "VmHWM"): number | null => {
  if (pid === undefined) return null
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"))
    return match?.[1] === undefined ? null : Math.round((Number(match[1]) / 1024) * 10) / 10
  } catch {
    return null
  }
}

/** On-CPU nanoseconds of every thread of a process so far. */
export const cpuNs = (pid: number): number => {
  let total = 0
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0])
    } catch {
      // a thread that ended between the listing and the read
    }
  }
  return total
}

/**
 * A process's CPU so far in user space and in the kernel, in clock ticks (USER_HZ, 10 ms): coarse, but
 * over the seconds of a measured round it says which side a difference between builds is on.
 */
export const userKernelTicks = (pid: number): { readonly user: number; readonly kernel: number } => {
  // utime and stime, the 14th and 15th fields; the command in parentheses may hold spaces
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return { user: Number(fields[11]), kernel: Number(fields[12]) }
}

/** On-CPU nanoseconds of every PostgreSQL server process so far (0 when none runs here). */
export const postgresNs = (): number => {
  let total = 0
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() !== "postgres") continue
      total += cpuNs(Number(pid))
    } catch {
      // gone meanwhile
    }
  }
  return total
}

export interface HttpAnswer {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
}

/** One HTTP call on a fresh connection, bounded by `timeoutMs`. Rejects only on socket errors/timeouts. */
export const httpCall = (
  url: string,
  options: {
    readonly method?: string
    readonly headers?: Record<string, string>
    readonly body?: string
    readonly timeoutMs?: number
  } = {}
): Promise<HttpAnswer> =>
  new Promise((resolve, reject) => {
    const body = options.body === undefined ? undefined : Buffer.from(options.body)
    const headers: Record<string, string> = { ...options.headers }
    if (body !== undefined) {
      headers["content-type"] ??= "application/json"
      headers["content-length"] = String(body.length)
    }
    const req = http.request(url, { method: options.method ?? "GET", headers, agent: false }, (res) => {
      const parts: Array<Buffer> = []
      res.on("data", (part: Buffer) => parts.push(part))
      res.on("error", reject)
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts).toString("utf8") }))
    })
    req.setTimeout(options.timeoutMs ?? 10_000, () =>
      req.destroy(new Error(`timed out after ${options.timeoutMs ?? 10_000} ms`)))
    req.on("error", reject)
    req.end(body)
  })

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))
