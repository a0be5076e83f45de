/**
 * `GATEWAY_WORKERS=n` (default 1): the primary process forks n gateway processes that share the
 * listening port (Node's cluster, round-robin), restarts one that dies, and passes SIGTERM and SIGINT on,
 * exiting once all of them have drained. The first worker starts alone, so the first start's bootstrap
 * (default org, dev key, admin token) runs once. Several processes need a store they can share:
 * PostgreSQL (`DATABASE_URL`); the embedded store belongs to one process.
 */
import cluster from "node:cluster"

/** The workers asked for: a whole number of at least 1, else an error to print. */
export const workersWanted = (env: NodeJS.ProcessEnv): number | string => {
  const raw = env["GATEWAY_WORKERS"]
  if (raw === undefined || raw.trim() === "") return 1
  const n = Number(raw)
  if (!Number.isInteger(n) || n < 1 || n > 256) {
    return `GATEWAY_WORKERS must be a whole number from 1 to 256, got '${raw}'.`
  }
  if (n > 1 && (env["DATABASE_URL"] ?? "") === "") {
    return "GATEWAY_WORKERS above 1 needs DATABASE_URL: the embedded store can be opened by one process only."
  }
  return n
}

/** Runs the primary: forks `n` workers and supervises them until a signal stops them all. */
export const superviseWorkers = (n: number): void => {
  let stopping = false
  // each worker has a slot (1..n) that a replacement takes over, with its request-log spill file
  const slots = new Map<number, number>()
  const fork = (slot: number, env: Record<string, string>) => {
    const worker = cluster.fork({ ...env, GATEWAY_WORKER: String(slot) })
    slots.set(worker.id, slot)
    return worker
  }
  const first = fork(1, {})
  first.once("listening", () => {
    for (let slot = 2; slot <= n; slot++) fork(slot, { GATEWAY_BOOTSTRAP: "false" })
  })
  cluster.on("exit", (worker, code, signal) => {
    const slot = slots.get(worker.id) ?? 1
    slots.delete(worker.id)
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0)
      return
    }
    console.error(`svc-gateway worker ${slot} (pid ${worker.process.pid}) exited (${signal ?? code}); starting another`)
    fork(slot, { GATEWAY_BOOTSTRAP: "false" })
  })
  const stop = (signal: NodeJS.Signals) => () => {
    if (stopping) return
    stopping = true
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal)
    if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0)
  }
  process.once("SIGTERM", stop("SIGTERM"))
  process.once("SIGINT", stop("SIGINT"))
}

export const isPrimaryOfWorkers = (): boolean => cluster.isPrimary
