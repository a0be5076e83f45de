/**
 * The one place typed errors become HTTP: a status and OpenAI's error body
 * `{"error":{"message","type","param","code"}}`. Handlers fail with typed errors; the edge calls
 * `errorResponse`, and streams that already sent headers call `errorBody` for their last event.
 */
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import type { SqlError } from "effect/sql"
import type { AdminError } from "../admin/AdminError.ts"
import type { AuthError } from "../auth/AuthError.ts"
import type { ToolLoopError } from "../core/ToolLoopError.ts"
import type { ProviderError } from "../providers/ProviderError.ts"
import type { RequestError } from "../kernel/RequestError.ts"

export type EdgeError = RequestError | AuthError | ProviderError | AdminError | ToolLoopError | SqlError.SqlError

export interface ErrorBody {
  readonly error: {
    readonly message: string
    readonly type: string
    readonly param: string | null
    readonly code: string | null
    readonly [extra: string]: unknown
  }
}

export interface Described {
  readonly status: number
  readonly body: ErrorBody
}

const body = (
  status: number,
  type: string,
  code: string | null,
  message: string,
  param: string | null = null,
  extra: Record<string, unknown> = {}
): Described => ({ status, body: { error: { message, type, param, code, ...extra } } })

const NEW_KEY_ADVICE = "Generate a new API key in the svc-gateway console (API keys) or with `svc-gateway keys create`."

const describeRequest = (error: RequestError): Described => {
  const reason = error.reason
  switch (reason._tag) {
    case "InvalidField":
      // no single field is at fault when the body as a whole is wrong
      return body(400, "invalid_request_error", reason.code ?? "invalid_value", reason.message, reason.param || null)
    case "InvalidJson":
      return body(400, "invalid_request_error", "invalid_json", reason.message)
    case "BodyTooLarge":
      return body(
        413,
        "invalid_request_error",
        "request_too_large",
        `The request body is larger than the limit of ${reason.limitBytes} bytes.`
      )
    case "ModelNotFound":
      return body(
        400,
        "invalid_request_error",
        "model_not_found",
        `The model '${reason.model}' is not served by this gateway. Address a model as <author_id>/<model_id>; GET /v1/models lists them.`,
        "model"
      )
    case "RouteNotFound":
      return body(404, "invalid_request_error", "not_found", `No route for ${reason.method} ${reason.path}.`)
    case "InvalidSvcToolIds":
      return body(
        400,
        "invalid_request_error",
        "invalid_svc_tool_ids",
        `Invalid svc_tool_ids: ${reason.invalid.map((i) => `'${i.id}' (${i.why})`).join(", ")}. Activate shared tools for the organization and allow them for the key in the svc-gateway console.`,
        "svc_tool_ids",
        { invalid_svc_tool_ids: reason.invalid.map((i) => i.id) }
      )
    case "InvalidSvcPendingId":
      return body(
        400,
        "invalid_request_error",
        "invalid_svc_pending_id",
        `The svc_pending_id '${reason.id}' is unknown or expired, or belongs to another API key. Send the whole conversation again without it.`,
        "svc_pending_id"
      )
    case "MethodNotAllowed":
      return body(
        405,
        "invalid_request_error",
        "method_not_allowed",
        `${reason.method} is not allowed on ${reason.path}; use ${reason.allowed.join(" or ")}.`
      )
  }
}

const describeAuth = (error: AuthError): Described => {
  const reason = error.reason
  switch (reason._tag) {
    case "MissingKey":
      return body(
        401,
        "authentication_error",
        "missing_api_key",
        `No API key was sent: use the header 'Authorization: Bearer <API_KEY>'. ${NEW_KEY_ADVICE}`
      )
    case "InvalidKey":
      return body(401, "authentication_error", "invalid_api_key", `The API key is not valid. ${NEW_KEY_ADVICE}`)
    case "ExpiredKey":
      return body(
        401,
        "authentication_error",
        "expired_api_key",
        `The API key expired at ${reason.expiredAt}. ${NEW_KEY_ADVICE}`
      )
    case "RevokedKey":
      return body(401, "authentication_error", "revoked_api_key", `The API key has been revoked. ${NEW_KEY_ADVICE}`)
    case "InvalidAdminToken":
      return body(
        401,
        "authentication_error",
        "invalid_admin_token",
        "The admin API needs 'Authorization: Bearer <GATEWAY_ADMIN_TOKEN>'."
      )
  }
}

const describeProvider = (error: ProviderError): Described => {
  const reason = error.reason
  switch (reason._tag) {
    case "UpstreamStatus":
      // the provider refusing the gateway's own credentials is not the client's key failing, and its
      // message may echo part of the provider key: say it is the gateway's configuration
      if (reason.status === 401 || reason.status === 403) {
        return body(
          502,
          "upstream_error",
          "upstream_auth_failed",
          `The provider '${error.provider}' refused the gateway's credentials (status ${reason.status}); check the provider's API key in the gateway's configuration.`
        )
      }
      // the provider's other 4xx are the client's business: pass them through as they are
      if (reason.status >= 400 && reason.status < 500) {
        return body(
          reason.status,
          reason.type ?? "invalid_request_error",
          reason.code ?? null,
          reason.message,
          reason.param ?? null
        )
      }
      return body(
        502,
        "upstream_error",
        "upstream_error",
        `The provider '${error.provider}' failed with status ${reason.status}: ${reason.message}`
      )
    case "UpstreamUnreachable":
      return body(502, "upstream_error", "upstream_unreachable", `The provider '${error.provider}' could not be reached: ${reason.message}`)
    case "UpstreamBadResponse":
      return body(502, "upstream_error", "upstream_bad_response", `The provider '${error.provider}' sent an invalid response: ${reason.message}`)
    case "UpstreamTimeout":
      return body(504, "upstream_error", "upstream_timeout", `The provider '${error.provider}' timed out (${reason.phase.replace("_", " ")}).`)
    case "ProviderUnavailable":
      return body(503, "upstream_error", "provider_unavailable", `The provider '${error.provider}' is unavailable: ${reason.message}`)
  }
}

const describeAdmin = (error: AdminError): Described => {
  const reason = error.reason
  switch (reason._tag) {
    case "NotFound":
      return body(404, "invalid_request_error", "not_found", `No ${reason.entity} with id '${reason.id}'.`)
    case "Conflict":
      return body(409, "invalid_request_error", "conflict", reason.message)
  }
}

const describeSql = (error: SqlError.SqlError): Described => {
  switch (error.reason._tag) {
    case "ConnectionError":
    case "AuthenticationError":
    case "LockTimeoutError":
    case "StatementTimeoutError":
    case "DeadlockError":
    case "SerializationError":
      return body(503, "server_error", "store_unavailable", "The gateway's store is unavailable; retry shortly.")
    default:
      // a real bug: say so, without internals
      return body(500, "server_error", "internal_error", "The gateway failed unexpectedly.")
  }
}

export const describeError = (error: EdgeError): Described => {
  switch (error._tag) {
    case "RequestError":
      return describeRequest(error)
    case "AuthError":
      return describeAuth(error)
    case "ProviderError":
      return describeProvider(error)
    case "AdminError":
      return describeAdmin(error)
    case "ToolLoopError":
      return body(
        502,
        "upstream_error",
        "svc_tool_round_limit",
        `The model kept calling shared tools for ${error.reason.rounds} rounds, the limit (GATEWAY_SVC_TOOL_MAX_ROUNDS); no final answer was produced.`
      )
    case "SqlError":
      return describeSql(error)
  }
}

export const internalError: Described = body(500, "server_error", "internal_error", "The gateway failed unexpectedly.")

export const errorResponse = (error: EdgeError) => {
  const described = describeError(error)
  return HttpServerResponse.jsonUnsafe(described.body, { status: described.status })
}

/**
 * Answers a handler's typed failures with their error responses. Only `EdgeError`s type-check here,
 * so a new error class must get its mapping above before any handler can fail with it; defects are
 * left alone and stay real 500s.
 */
export const respondWithErrors = <A, E extends EdgeError, R>(
  handler: Effect.Effect<A, E, R>
): Effect.Effect<A | HttpServerResponse.HttpServerResponse, never, R> =>
  Effect.catch(handler, (error: E) => Effect.succeed(errorResponse(error)))
