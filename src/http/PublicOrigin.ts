/**
 * The gateway's origin as a browser reaches it, for the URLs an identity or authorization server sends
 * the browser back to: behind a TLS-ending proxy, the scheme and host of `X-Forwarded-Proto` and
 * `X-Forwarded-Host`, else the request's `Host`. The server it is registered at checks it, so a forged
 * header can only send a person to a callback that was never registered.
 */
import type { HttpServerRequest } from "effect/http"

export const publicOrigin = (request: HttpServerRequest.HttpServerRequest): string => {
  const proto = request.headers["x-forwarded-proto"]?.split(",")[0]?.trim() ?? "http"
  const host = request.headers["x-forwarded-host"]?.split(",")[0]?.trim() ?? request.headers["host"] ?? "localhost"
  return `${proto === "https" ? "https" : "http"}://${host}`
}
