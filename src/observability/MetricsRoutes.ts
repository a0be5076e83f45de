/**
 * `GET /metrics`: the `Metrics` registry in the Prometheus text format 0.0.4.
 *
 * Unauthenticated by default, as Prometheus scrapes usually are: keep the port off the internet or
 * set `GATEWAY_METRICS_TOKEN`, and then the route requires `Authorization: Bearer <token>` (Prometheus:
 * `authorization: { credentials: <token> }` in the scrape config). An empty value counts as unset.
 */
import { Config, Effect, Layer, Option, Redacted } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { createHash, timingSafeEqual } from "node:crypto"
import { bearerToken } from "../auth/Auth.ts"
import { Metrics } from "./Metrics.ts"
import { CONTENT_TYPE } from "./Prometheus.ts"

export const METRICS_PATH = "/metrics"

const digest = (text: string) => createHash("sha256").update(text).digest()

/** Whether an `Authorization` header carries the token; compared in constant time. */
export const tokenMatches = (expected: Redacted.Redacted<string>, authorization: string | undefined): boolean => {
  const token = bearerToken(authorization)
  return token !== undefined && timingSafeEqual(digest(token), digest(Redacted.value(expected)))
}

const unauthorized = HttpServerResponse.jsonUnsafe(
  {
    error: {
      message: "GET /metrics needs 'Authorization: Bearer <GATEWAY_METRICS_TOKEN>'.",
      type: "authentication_error",
      param: null,
      code: "invalid_metrics_token"
    }
  },
  { status: 401, headers: { "www-authenticate": "Bearer" } }
)

/** The metrics token from the environment (`GATEWAY_METRICS_TOKEN`); none when unset or empty. */
export const metricsToken = Config.Redacted("GATEWAY_METRICS_TOKEN").pipe(
  Config.option,
  Config.map(Option.filter((token) => Redacted.value(token) !== ""))
)

/** The route for an explicit token setting (tests); `MetricsRoutes` reads it from the environment. */
export const metricsRoute = (token: Option.Option<Redacted.Redacted<string>>) =>
  HttpRouter.add(
    "GET",
    METRICS_PATH,
    Effect.gen(function*() {
      if (Option.isSome(token)) {
        const request = yield* HttpServerRequest.HttpServerRequest
        if (!tokenMatches(token.value, request.headers["authorization"])) return unauthorized
      }
      const metrics = yield* Metrics
      return HttpServerResponse.text(metrics.render(), {
        contentType: CONTENT_TYPE,
        headers: { "cache-control": "no-store" }
      })
    })
  )

/** `GET /metrics`, guarded by `GATEWAY_METRICS_TOKEN` when it is set. Needs `Metrics`. */
export const MetricsRoutes = Layer.unwrap(Effect.map(metricsToken, metricsRoute))
