/**
 * What the Node server answers to a request it could not parse (headers over Node's 16 KiB, a malformed
 * request line, a body that is not valid chunked encoding), which never reaches the router. Node's own
 * answer is a status without a body; this one is JSON that both error shapes the gateway speaks read:
 * OpenAI's `{"error":{"message","type","param","code"}}` and Anthropic's `{"type":"error","error":{...}}`,
 * since the path it was meant for is not known.
 */
import type { Duplex } from "node:stream"

const STATUS_TEXT: Record<number, string> = {
  400: "Bad Request",
  408: "Request Timeout",
  431: "Request Header Fields Too Large"
}

const answer = (
  code: string | undefined
): { readonly status: number; readonly code: string; readonly message: string } => {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return {
        status: 431,
        code: "request_header_fields_too_large",
        message: "The request's headers are larger than the gateway reads (16 KiB)."
      }
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { status: 408, code: "request_timeout", message: "The request did not arrive in time." }
    default:
      return { status: 400, code: "invalid_http_request", message: "The request is not valid HTTP/1.1." }
  }
}

/** The server's `clientError` listener. */
export const onClientError = (error: Error & { readonly code?: string }, socket: Duplex): void => {
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy()
    return
  }
  const { code, message, status } = answer(error.code)
  const body = JSON.stringify({ type: "error", error: { type: "invalid_request_error", message, param: null, code } })
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\ncontent-type: application/json\r\ncontent-length: ${
      Buffer.byteLength(body)
    }\r\nconnection: close\r\n\r\n${body}`
  )
}
