/**
 * A proxy on 127.0.0.1 for the real clients' runs: their proxy variables point at it, it records every
 * request and tunnel it is asked for and refuses them all, so a run can say what tried to leave the
 * machine (an update check, a plugin sync, telemetry) and nothing does.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

export interface RecordingProxy {
  readonly url: string
  /** `CONNECT host:port` per tunnel asked for, `METHOD url` per plain request. */
  readonly seen: ReadonlyArray<string>
  readonly close: () => Promise<void>
}

export const recordingProxy = async (): Promise<RecordingProxy> => {
  const seen: Array<string> = []
  const server = createServer((request, response) => {
    seen.push(`${request.method ?? "?"} ${request.url ?? ""}`)
    response.writeHead(502).end()
  })
  server.on("connect", (request, socket) => {
    // a client may reset the tunnel once refused: not this proxy's failure
    socket.on("error", () => {})
    seen.push(`CONNECT ${request.url ?? ""}`)
    socket.end("HTTP/1.1 502 Bad Gateway\r\n\r\n")
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { url, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

/** The variables that send a client's traffic through `url`, but for loopback (the gateway, the fakes). */
export const proxyEnv = (url: string): Record<string, string> => ({
  HTTP_PROXY: url,
  HTTPS_PROXY: url,
  ALL_PROXY: url,
  http_proxy: url,
  https_proxy: url,
  NO_PROXY: "127.0.0.1,localhost",
  no_proxy: "127.0.0.1,localhost"
})
