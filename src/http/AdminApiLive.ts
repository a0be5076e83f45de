/**
 * The admin API served: `AdminApi`'s routes over `AdminHandlers`, the admin token checked before
 * anything else, input that misses an endpoint's schema refused in the gateway's words, and the
 * OpenAPI document at `GET /admin/v1/openapi.json`.
 */
import { Effect, Layer } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiBuilder, HttpApiMiddleware } from "effect/http-api"
import { AdminApi, AdminAuthorization, AdminFailures, OPENAPI_PATH } from "../admin/AdminApi.ts"
import { AdminAuth } from "../auth/AdminAuth.ts"
import { AuthError, InvalidAdminToken } from "../auth/AuthError.ts"
import { CSRF_HEADER, SESSION_COOKIE } from "../kernel/ConsoleCookie.ts"
import { toRequestError } from "../kernel/DecodeInput.ts"
import { CurrentPrincipal, LOCAL_CLI } from "../kernel/Principal.ts"
import { ConsoleSessions, csrfRefused, csrfTokenOf, type SessionRefusal } from "../sso/ConsoleSessions.ts"
import { AlertsHandlers } from "./AdminAlertsHandlers.ts"
import { AuditHandlers } from "./AdminAuditHandlers.ts"
import { AdminHandlers, apiError } from "./AdminHandlers.ts"
import { McpServersHandlers } from "./AdminMcpHandlers.ts"
import { PricesHandlers } from "./AdminPricesHandlers.ts"
import { UsersHandlers } from "./AdminUsersHandlers.ts"

/** Query or path parameters that do not fit their schema: a 400 naming the parameter. */
export const AdminFailuresLive = HttpApiMiddleware.layerSchemaErrorTransform(
  AdminFailures,
  (error) => Effect.fail(apiError(toRequestError(error.cause)))
)

const SESSION_REFUSED: Record<SessionRefusal, string> = {
  unknown: "The console session is not valid; sign in again.",
  expired: "The console session has expired; sign in again.",
  revoked: "The console session was signed out; sign in again.",
  disabled: "The console session's user is disabled."
}

/** Methods that change nothing: the only ones a session cookie may send without its CSRF token. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"])

/**
 * The caller, from the request's own headers so they are parsed as everywhere else: the admin token, or
 * a person's personal access token with their roles; without an `Authorization` header, a console
 * session's cookie, whose changes must carry the session's CSRF token. A bearer wins over a cookie, so
 * an API client is never taken for the browser it runs in.
 */
export const AdminAuthorizationLive = Layer.effect(
  AdminAuthorization,
  Effect.gen(function*() {
    const auth = yield* AdminAuth
    const sessions = yield* ConsoleSessions
    const principalOf = Effect.fnUntraced(function*(request: HttpServerRequest.HttpServerRequest) {
      const authorization = request.headers["authorization"]
      const cookie = request.cookies[SESSION_COOKIE]
      if (authorization !== undefined || cookie === undefined) return yield* auth.authenticate(authorization)
      const found = yield* sessions.authenticate(cookie)
      if (typeof found === "string") {
        return yield* new AuthError({ reason: new InvalidAdminToken({ detail: SESSION_REFUSED[found] }) })
      }
      if (!SAFE_METHODS.has(request.method) && request.headers[CSRF_HEADER] !== csrfTokenOf(cookie)) {
        return yield* csrfRefused("A change")
      }
      return found
    })
    // both security schemes (bearer, cookie) come here: the request decides which one it uses
    const handle: AdminAuthorization["Service"]["bearer"] = (handler) =>
      Effect.flatMap(
        HttpServerRequest.HttpServerRequest,
        (request) =>
          principalOf(request).pipe(
            Effect.mapError(apiError),
            Effect.flatMap((principal) => Effect.provideService(handler, CurrentPrincipal, principal))
          )
      )
    return AdminAuthorization.of({ bearer: handle, session: handle })
  })
)

/** For a caller already trusted with the store itself (the CLI on the local store): an owner. */
export const AdminAuthorizationTrusted = Layer.succeed(
  AdminAuthorization,
  AdminAuthorization.of({
    bearer: (handler) => Effect.provideService(handler, CurrentPrincipal, LOCAL_CLI),
    session: (handler) => Effect.provideService(handler, CurrentPrincipal, LOCAL_CLI)
  })
)

/** The handlers with their middleware; `authorization` decides who may call them. */
export const adminHandlers = <E, R>(authorization: Layer.Layer<AdminAuthorization, E, R>) =>
  AdminHandlers.pipe(Layer.provideMerge(Layer.mergeAll(authorization, AdminFailuresLive)))

/** The admin API's routes and its OpenAPI document, on the router. */
export const AdminApiRoutes = HttpApiBuilder.layer(AdminApi, { openapiPath: OPENAPI_PATH }).pipe(
  Layer.provide(Layer.mergeAll(
    adminHandlers(AdminAuthorizationLive),
    Layer.mergeAll(PricesHandlers, AlertsHandlers, UsersHandlers, AuditHandlers, McpServersHandlers).pipe(
      Layer.provide(Layer.mergeAll(AdminAuthorizationLive, AdminFailuresLive))
    )
  ))
)
