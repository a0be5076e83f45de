/**
 * Shared plumbing for the bench's server children (fake upstream, pass-through): listen on 127.0.0.1
 * with long keep-alive, report the port to the parent over IPC, and stop by themselves when the parent
 * disconnects, on a signal, or after a maximum lifetime.
 */
import type http from "node:http"
import type { AddressInfo } from "node:net"

export interface RunningServer {
  readonly port: number
  readonly close: () => Promise<void>
}

/** Listen on 127.0.0.1 (port 0 by default) with long keep-alive, so clients' pooled sockets stay valid. */
export const listen = (server: http.Server, port = 0): Promise<RunningServer> => {
  server.keepAliveTimeout = 60_000
  server.headersTimeout = 61_000
  return new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(port, "127.0.0.1", () => {
      const address = server.address() as AddressInfo
      resolve({
        port: address.port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done())
            server.closeAllConnections()
          })
      })
    })
  })
}

/** Longest a bench server child lives, whatever happens to its parent (BENCH_CHILD_MAX_SECONDS). */
const maxLifetimeMs = (): number => {
  const seconds = Number(process.env["BENCH_CHILD_MAX_SECONDS"] ?? "900")
  return (Number.isFinite(seconds) && seconds > 0 ? seconds : 900) * 1_000
}

/**
 * Child-process entry: report the port to the parent (IPC, or a JSON line on stdout when run by hand),
 * then exit when the parent disconnects, on SIGTERM/SIGINT, or after the maximum lifetime.
 */
export const serveAsChild = async (start: () => Promise<RunningServer>): Promise<void> => {
  const running = await start()
  const stop = (): void => {
    void running.close().then(() => process.exit(0))
    setTimeout(() => process.exit(0), 1_000).unref()
  }
  process.once("SIGTERM", stop)
  process.once("SIGINT", stop)
  setTimeout(stop, maxLifetimeMs()).unref()
  if (process.send === undefined) {
    console.log(JSON.stringify({ type: "listening", port: running.port }))
  } else {
    process.once("disconnect", stop)
    process.send({ type: "listening", port: running.port })
  }
}
