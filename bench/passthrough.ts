/**
 * Benchmark floor: a bare `node:http` pass-through proxy on 127.0.0.1. It forwards method, path,
 * headers and body to the upstream over a keep-alive agent and pipes the response straight back; no
 * parsing, no auth, no logging. Any Node gateway does at least this much work per request.
 * Usage (as a child of bench/run.ts): `node bench/passthrough.ts <upstream-port>`.
 */
import http from "node:http"
import { pathToFileURL } from "node:url"
import { listen, type RunningServer, serveAsChild } from "./child.ts"

/** Hop-by-hop headers, which describe one connection and are not forwarded. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "te",
  "trailer",
  "upgrade"
])

const forwardable = (headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders => {
  const out: http.OutgoingHttpHeaders = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value
  }
  return out
}

export const startPassthrough = (upstreamPort: number, port = 0): Promise<RunningServer> => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 256 })
  const server = http.createServer((req, res) => {
    const upstream = http.request(
      {
        host: "127.0.0.1",
        port: upstreamPort,
        method: req.method,
        path: req.url,
        headers: forwardable(req.headers),
        agent
      },
      (upRes) => {
        res.writeHead(upRes.statusCode ?? 502, forwardable(upRes.headers))
        upRes.pipe(res)
        upRes.on("error", () => res.destroy())
      }
    )
    upstream.on("error", (error) => {
      if (res.headersSent) return void res.destroy()
      const body = JSON.stringify({ error: { message: `upstream: ${error.message}`, type: "bad_gateway" } })
      res.writeHead(502, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
      res.end(body)
    })
    req.pipe(upstream)
  })
  return listen(server, port)
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const upstreamPort = Number(process.argv[2])
  if (!Number.isInteger(upstreamPort) || upstreamPort <= 0) {
    console.error("usage: passthrough.ts <upstream-port> [listen-port]")
    process.exit(2)
  }
  const port = Number(process.argv[3] ?? "0")
  void serveAsChild(() => startPassthrough(upstreamPort, Number.isInteger(port) ? port : 0))
}
