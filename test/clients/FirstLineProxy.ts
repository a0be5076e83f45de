/**
 * A TCP proxy on 127.0.0.1 in front of the gateway that records the first line of each connection
 * (`GET /v1/responses HTTP/1.1` for a WebSocket handshake, `POST /v1/responses ...` for a request), so
 * a test can tell which transport a client used without the gateway knowing it is watched.
 */
import { connect, createServer, type Socket } from "node:net"
import type { AddressInfo } from "node:net"

export interface FirstLineProxy {
  readonly url: string
  readonly firstLines: ReadonlyArray<string>
  readonly close: () => Promise<void>
}

export const firstLineProxy = async (target: string): Promise<FirstLineProxy> => {
  const { hostname, port } = new URL(target)
  const firstLines: Array<string> = []
  const sockets = new Set<Socket>()
  const server = createServer((client) => {
    const upstream = connect(Number(port), hostname)
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on("close", () => sockets.delete(socket))
      socket.on("error", () => {})
    }
    let head = ""
    const watch = (chunk: Buffer) => {
      head += chunk.toString("latin1")
      const end = head.indexOf("\r\n")
      if (end === -1 && head.length < 8_192) return
      firstLines.push(end === -1 ? head : head.slice(0, end))
      client.off("data", watch)
    }
    client.on("data", watch)
    client.pipe(upstream)
    upstream.pipe(client)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    firstLines,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      })
  }
}
