/** A webhook on 127.0.0.1 that keeps what it is posted: the body as JSON and the headers. */
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"

export interface Posted {
  readonly headers: IncomingHttpHeaders
  readonly body: Record<string, unknown>
}

export interface WebhookReceiver {
  readonly url: string
  readonly posted: Array<Posted>
  readonly close: () => Promise<void>
}

/** Answers each post with the next of `statuses`, then 204. */
export const startWebhookReceiver = async (statuses: ReadonlyArray<number> = []): Promise<WebhookReceiver> => {
  const posted: Array<Posted> = []
  const server = createServer((request, response) => {
    let text = ""
    request.on("data", (chunk: Buffer) => (text += chunk.toString()))
    request.on("end", () => {
      posted.push({ headers: request.headers, body: JSON.parse(text) })
      response.writeHead(statuses[posted.length - 1] ?? 204).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    posted,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}
