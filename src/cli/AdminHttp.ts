/**
 * The admin client over a running gateway's admin API: the client derived from `AdminApi`, with the
 * admin token, a time limit, and transport failures and refusals told in the CLI's words.
 */
import { Duration, Effect, Redacted } from "effect"
import { HttpClient, HttpClientError, HttpClientRequest } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import { AdminApi } from "../admin/AdminApi.ts"
import { AdminClientError } from "./AdminClientError.ts"
import { adminShape, declaredFailure, type Invoke, type Wording } from "./AdminClientShape.ts"

export interface HttpOptions {
  /** The gateway's base URL, e.g. `http://127.0.0.1:8080`; `/admin/v1` is appended. */
  readonly url: string
  readonly adminToken: Redacted.Redacted<string>
  /** Budget for one call, connection included. */
  readonly timeout?: Duration.Input
}

/** The base URL without a trailing slash, or `undefined` when it is not an http(s) URL. */
export const normalizeBaseUrl = (url: string): string | undefined => {
  try {
    const parsed = new URL(url)
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return undefined
    return parsed.href.replace(/\/+$/, "")
  } catch {
    return undefined
  }
}

const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: "connection refused (is the gateway running, and is --url its address?)",
  ENOTFOUND: "host not found",
  ECONNRESET: "connection reset",
  ETIMEDOUT: "connection timed out"
}

/** The most specific reason in a transport error's cause chain (fetch nests the socket error). */
const transportDetail = (error: HttpClientError.HttpClientError): string => {
  let cause: unknown = error.reason
  let detail = error.message
  for (let depth = 0; depth < 5 && typeof cause === "object" && cause !== null; depth++) {
    if ("code" in cause && typeof cause.code === "string") return NETWORK_CODES[cause.code] ?? cause.code
    if ("message" in cause && typeof cause.message === "string" && cause.message !== "") detail = cause.message
    cause = "cause" in cause ? cause.cause : undefined
  }
  return detail
}

/**
 * The derived client over the gateway at `options.url`. Each call gets a client of its own that
 * remembers the status it saw, so an answer that is not the API's can be told with its status.
 */
export const makeHttpAdmin = (options: HttpOptions) =>
  Effect.gen(function*() {
    const http = (yield* HttpClient.HttpClient).pipe(
      HttpClient.mapRequest(HttpClientRequest.bearerToken(Redacted.value(options.adminToken)))
    )
    const base = normalizeBaseUrl(options.url) ?? options.url
    const timeout = options.timeout ?? Duration.seconds(30)
    const wording: Wording = {
      refusedToken: `The gateway at ${base} refused the admin token: check --admin-token or GATEWAY_ADMIN_TOKEN.`,
      failed: (status, message) => `The gateway at ${base} failed (${status}): ${message}`
    }
    const unexpected = (status: number) =>
      AdminClientError.unavailable(
        `The server at ${base} answered ${status} with an unexpected body; is --url the gateway's address?`
      )

    const invoke: Invoke = (call) =>
      Effect.gen(function*() {
        let status = 0
        const client = yield* HttpApiClient.makeWith(AdminApi, {
          httpClient: HttpClient.tap(http, (response) => Effect.sync(() => (status = response.status))),
          baseUrl: base
        })
        return yield* call(client).pipe(
          Effect.mapError((error) => {
            const declared = declaredFailure(error, wording)
            if (declared !== undefined) return declared
            if (HttpClientError.isHttpClientError(error) && error.response === undefined) {
              return AdminClientError.unavailable(`Could not reach the gateway at ${base}: ${transportDetail(error)}.`)
            }
            return unexpected(status)
          })
        )
      }).pipe(
        // the whole call, body included: a gateway that accepts and then stalls must not hang the CLI
        Effect.timeoutOrElse({
          duration: timeout,
          orElse: () => Effect.fail(AdminClientError.unavailable(`The gateway at ${base} did not answer in time.`))
        })
      )
    return adminShape(invoke)
  })
