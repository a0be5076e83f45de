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
import { toRequestError } from "../kernel/DecodeInput.ts"
import { CurrentPrincipal, LOCAL_CLI } from "../kernel/Principal.ts"
import { AlertsHandlers } from "./AdminAlertsHandlers.ts"
import { AuditHandlers } from "./AdminAuditHandlers.ts"
import { AdminHandlers, apiError } from "./AdminHandlers.ts"
import { PricesHandlers } from "./AdminPricesHandlers.ts"
import { UsersHandlers } from "./AdminUsersHandlers.ts"

/** Query or path parameters that do not fit their schema: a 400 naming the parameter. */
export const AdminFailuresLive = HttpApiMiddleware.layerSchemaErrorTransform(
  AdminFailures,
  (error) => Effect.fail(apiError(toRequestError(error.cause)))
)

/**
 * The caller, from the request's own header so it is parsed as everywhere else: the admin token, or a
 * person's personal access token with their roles.
 */
export const AdminAuthorizationLive = Layer.effect(
  AdminAuthorization,
  Effect.gen(function*() {
    const auth = yield* AdminAuth
    return AdminAuthorization.of({
      bearer: (handler) =>
        Effect.flatMap(
          HttpServerRequest.HttpServerRequest,
          (request) =>
            auth.authenticate(request.headers["authorization"]).pipe(
              Effect.mapError(apiError),
              Effect.flatMap((principal) => Effect.provideService(handler, CurrentPrincipal, principal))
            )
        )
    })
  })
)

/** For a caller already trusted with the store itself (the CLI on the local store): an owner. */
export const AdminAuthorizationTrusted = Layer.succeed(
  AdminAuthorization,
  AdminAuthorization.of({ bearer: (handler) => Effect.provideService(handler, CurrentPrincipal, LOCAL_CLI) })
)

/** The handlers with their middleware; `authorization` decides who may call them. */
export const adminHandlers = <E, R>(authorization: Layer.Layer<AdminAuthorization, E, R>) =>
  AdminHandlers.pipe(Layer.provideMerge(Layer.mergeAll(authorization, AdminFailuresLive)))

/** The admin API's routes and its OpenAPI document, on the router. */
export const AdminApiRoutes = HttpApiBuilder.layer(AdminApi, { openapiPath: OPENAPI_PATH }).pipe(
  Layer.provide(Layer.mergeAll(
    adminHandlers(AdminAuthorizationLive),
    Layer.mergeAll(PricesHandlers, AlertsHandlers, UsersHandlers, AuditHandlers).pipe(
      Layer.provide(Layer.mergeAll(AdminAuthorizationLive, AdminFailuresLive))
    )
  ))
)
