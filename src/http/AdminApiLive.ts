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
import { AlertsHandlers } from "./AdminAlertsHandlers.ts"
import { AdminHandlers, apiError } from "./AdminHandlers.ts"
import { PricesHandlers } from "./AdminPricesHandlers.ts"

/** Query or path parameters that do not fit their schema: a 400 naming the parameter. */
export const AdminFailuresLive = HttpApiMiddleware.layerSchemaErrorTransform(
  AdminFailures,
  (error) => Effect.fail(apiError(toRequestError(error.cause)))
)

/** The gateway's admin token, read from the request's own header so it is parsed as everywhere else. */
export const AdminAuthorizationLive = Layer.effect(
  AdminAuthorization,
  Effect.gen(function*() {
    const auth = yield* AdminAuth
    return AdminAuthorization.of({
      bearer: (handler) =>
        Effect.flatMap(
          HttpServerRequest.HttpServerRequest,
          (request) =>
            auth.check(request.headers["authorization"]).pipe(
              Effect.mapError(apiError),
              Effect.andThen(handler)
            )
        )
    })
  })
)

/** For a caller already trusted with the store itself (the CLI on the local store): no token to check. */
export const AdminAuthorizationTrusted = Layer.succeed(
  AdminAuthorization,
  AdminAuthorization.of({ bearer: (handler) => handler })
)

/** The handlers with their middleware; `authorization` decides who may call them. */
export const adminHandlers = <E, R>(authorization: Layer.Layer<AdminAuthorization, E, R>) =>
  AdminHandlers.pipe(Layer.provideMerge(Layer.mergeAll(authorization, AdminFailuresLive)))

/** The admin API's routes and its OpenAPI document, on the router. */
export const AdminApiRoutes = HttpApiBuilder.layer(AdminApi, { openapiPath: OPENAPI_PATH }).pipe(
  Layer.provide(Layer.mergeAll(
    adminHandlers(AdminAuthorizationLive),
    Layer.mergeAll(PricesHandlers, AlertsHandlers).pipe(
      Layer.provide(Layer.mergeAll(AdminAuthorizationLive, AdminFailuresLive))
    )
  ))
)
