/**
 * What went wrong with a request, in no wire format yet: every typed error the edge can meet becomes a
 * `Problem` (status, OpenAI-style type and code, message, the field at fault) here, once; each dialect
 * then writes it in its client's own error shape (`Dialect.errorBody`, `Dialect.streamError`).
 */
import type { SqlError } from "effect/sql"
import type { AuthError } from "../auth/AuthError.ts"
import type { AdminError } from "../kernel/AdminError.ts"
import type { LimitError } from "../kernel/LimitError.ts"
import { isBudget, isDollarLimit } from "../kernel/Limits.ts"
import type { RequestError } from "../kernel/RequestError.ts"
import { wellKnown } from "../providers/Adapters.ts"
import type { ProviderError, UpstreamStatus } from "../providers/ProviderError.ts"
import type { ToolLoopError } from "./ToolLoopError.ts"

export type EdgeError =
  | RequestError
  | AuthError
  | ProviderError
  | AdminError
  | ToolLoopError
  | LimitError
  | SqlError.SqlError

/** What would serve `model`: the variable that enables its author's well-known service, or a routing entry. */
export const modelNotFoundMessage = (model: string): string => {
  const slash = model.indexOf("/")
  if (slash <= 0) {
    return `The model '${model}' is not served by this gateway. Address a model as <author_id>/<model_id>; GET /v1/models lists them.`
  }
  const author = model.slice(0, slash)
  const known = wellKnown.find((service) => service.name === author)
  const enable = known === undefined
    ? `add a provider named '${author}' to the routing file (GATEWAY_CONFIG), or a route that matches '${model}'`
    : known.baseUrl === undefined
    ? `set ${known.env}_BASE_URL (and ${known.env}_API_KEY if it needs one), or add a provider named '${author}' to the routing file (GATEWAY_CONFIG)`
    : `set ${known.env}_API_KEY, or add a provider named '${author}' to the routing file (GATEWAY_CONFIG)`
  return `The model '${model}' is not served by this gateway: no provider '${author}' is configured. To serve it, ${enable}. GET /v1/models lists the models it serves.`
}

export interface Problem {
  readonly status: number
  /** OpenAI's error type: `invalid_request_error`, `authentication_error`, `upstream_error`, `server_error`. */
  readonly type: string
  readonly code: string | null
  readonly message: string
  /** The field at fault, when one is. */
  readonly param: string | null
  /** Sent as `Retry-After` (a circuit open, a limit reached). */
  readonly retryAfterSeconds?: number | undefined
  /** More top-level fields of the error object (`invalid_svc_tool_ids`). */
  readonly extra: Readonly<Record<string, unknown>>
  /**
   * The upstream's own refusal or failure, as it came: a dialect whose format is the upstream's passes it
   * on unchanged (Claude Code matches on Anthropic's error types and wording).
   */
  readonly upstream?: {
    readonly provider: string
    readonly status: number
    readonly type: string | undefined
    readonly message: string
  }
}

const withUpstream = (described: Problem, provider: string, reason: UpstreamStatus): Problem => ({
  ...described,
  upstream: { provider, status: reason.status, type: reason.type, message: reason.message }
})

const problem = (fields: {
  readonly status: number
  readonly type: string
  readonly code: string | null
  readonly message: string
  readonly param?: string | null
  readonly extra?: Readonly<Record<string, unknown>>
}): Problem => ({
  status: fields.status,
  type: fields.type,
  code: fields.code,
  message: fields.message,
  param: fields.param ?? null,
  extra: fields.extra ?? {}
})

const NEW_KEY_ADVICE = "Generate a new API key in the svc-gateway console (API keys) or with `svc-gateway keys create`."

const describeRequest = (error: RequestError): Problem => {
  const reason = error.reason
  switch (reason._tag) {
    case "InvalidField":
      // no single field is at fault when the body as a whole is wrong
      return problem({
        status: 400,
        type: "invalid_request_error",
        code: reason.code ?? "invalid_value",
        message: reason.message,
        param: reason.param || null
      })
    case "InvalidJson":
      return problem({ status: 400, type: "invalid_request_error", code: "invalid_json", message: reason.message })
    case "BodyTooLarge":
      return problem({
        status: 413,
        type: "invalid_request_error",
        code: "request_too_large",
        message: `The request body is larger than the limit of ${reason.limitBytes} bytes.`
      })
    case "ModelNotFound":
      // 404, as OpenAI answers an unknown model (and the local provider a model it lacks)
      return problem({
        status: 404,
        type: "invalid_request_error",
        code: "model_not_found",
        message: modelNotFoundMessage(reason.model),
        param: "model"
      })
    case "RouteNotFound":
      return problem({
        status: 404,
        type: "invalid_request_error",
        code: "not_found",
        message: `No route for ${reason.method} ${reason.path}.`
      })
    case "InvalidSvcToolIds":
      return problem({
        status: 400,
        type: "invalid_request_error",
        code: "invalid_svc_tool_ids",
        message: `Invalid svc_tool_ids: ${
          reason.invalid.map((i) => `'${i.id}' (${i.why})`).join(", ")
        }. Activate shared tools for the organization and allow them for the key in the svc-gateway console.`,
        param: "svc_tool_ids",
        extra: { invalid_svc_tool_ids: reason.invalid.map((i) => i.id) }
      })
    case "InvalidSvcPendingId":
      return problem({
        status: 400,
        type: "invalid_request_error",
        code: "invalid_svc_pending_id",
        message:
          `The svc_pending_id '${reason.id}' is unknown or expired, or belongs to another API key. Send the whole conversation again without it.`,
        param: "svc_pending_id"
      })
    case "MethodNotAllowed":
      return problem({
        status: 405,
        type: "invalid_request_error",
        code: "method_not_allowed",
        message: `${reason.method} is not allowed on ${reason.path}; use ${reason.allowed.join(" or ")}.`
      })
  }
}

const describeAuth = (error: AuthError): Problem => {
  const reason = error.reason
  switch (reason._tag) {
    case "MissingKey":
      return problem({
        status: 401,
        type: "authentication_error",
        code: "missing_api_key",
        message: `No API key was sent: use the header 'Authorization: Bearer <API_KEY>'. ${NEW_KEY_ADVICE}`
      })
    case "InvalidKey":
      return problem({
        status: 401,
        type: "authentication_error",
        code: "invalid_api_key",
        message: `The API key is not valid. ${NEW_KEY_ADVICE}`
      })
    case "ExpiredKey":
      return problem({
        status: 401,
        type: "authentication_error",
        code: "expired_api_key",
        message: `The API key expired at ${reason.expiredAt}. ${NEW_KEY_ADVICE}`
      })
    case "RevokedKey":
      return problem({
        status: 401,
        type: "authentication_error",
        code: "revoked_api_key",
        message: `The API key has been revoked. ${NEW_KEY_ADVICE}`
      })
    case "InvalidAdminToken":
      return problem({
        status: 401,
        type: "authentication_error",
        code: "invalid_admin_token",
        message: reason.detail ??
          "The admin API needs 'Authorization: Bearer <GATEWAY_ADMIN_TOKEN>' or a personal access token."
      })
  }
}

const describeProvider = (error: ProviderError): Problem => {
  const reason = error.reason
  switch (reason._tag) {
    case "UpstreamStatus":
      // the provider refusing the gateway's own credentials is not the client's key failing, and its
      // message may echo part of the provider key: say it is the gateway's configuration
      if (reason.status === 401 || reason.status === 403) {
        return problem({
          status: 502,
          type: "upstream_error",
          code: "upstream_auth_failed",
          message:
            `The provider '${error.provider}' refused the gateway's credentials (status ${reason.status}); check the provider's API key in the gateway's configuration.`
        })
      }
      // the provider's other 4xx are the client's business: pass them through as they are
      if (reason.status >= 400 && reason.status < 500) {
        return withUpstream(
          problem({
            status: reason.status,
            type: reason.type ?? "invalid_request_error",
            code: reason.code ?? null,
            message: reason.message,
            param: reason.param ?? null
          }),
          error.provider,
          reason
        )
      }
      return withUpstream(
        problem({
          status: 502,
          type: "upstream_error",
          code: "upstream_error",
          message: `The provider '${error.provider}' failed with status ${reason.status}: ${reason.message}`
        }),
        error.provider,
        reason
      )
    case "UpstreamUnreachable":
      return problem({
        status: 502,
        type: "upstream_error",
        code: "upstream_unreachable",
        message: `The provider '${error.provider}' could not be reached: ${reason.message}`
      })
    case "UpstreamBadResponse":
      return problem({
        status: 502,
        type: "upstream_error",
        code: "upstream_bad_response",
        message: `The provider '${error.provider}' sent an invalid response: ${reason.message}`
      })
    case "UpstreamTimeout":
      return problem({
        status: 504,
        type: "upstream_error",
        code: "upstream_timeout",
        message: `The provider '${error.provider}' timed out (${reason.phase.replace("_", " ")}).`
      })
    case "ProviderUnavailable":
      return problem({
        status: 503,
        type: "upstream_error",
        code: "provider_unavailable",
        message: `The provider '${error.provider}' is unavailable: ${reason.message}`
      })
    case "TargetOpen":
      return {
        ...problem({
          status: 503,
          type: "upstream_error",
          code: "upstream_circuit_open",
          message: `The model '${reason.target}' failed repeatedly and is skipped for now; retry in ${
            Math.ceil(reason.retryAfterMs / 1000)
          } s.`
        }),
        retryAfterSeconds: Math.max(1, Math.ceil(reason.retryAfterMs / 1000))
      }
  }
}

const describeAdmin = (error: AdminError): Problem => {
  const reason = error.reason
  switch (reason._tag) {
    case "NotFound":
      return problem({
        status: 404,
        type: "invalid_request_error",
        code: "not_found",
        message: `No ${reason.entity} with id '${reason.id}'.`
      })
    case "Conflict":
      return problem({ status: 409, type: "invalid_request_error", code: "conflict", message: reason.message })
    case "Forbidden":
      return problem({ status: 403, type: "permission_error", code: "forbidden", message: reason.message })
  }
}

const LIMIT_WORDS: Record<LimitError["reason"]["kind"], string> = {
  rpm: "requests per minute",
  tpm: "tokens per minute",
  tokens_per_day: "tokens per day (UTC)",
  tokens_per_month: "tokens per month (UTC)",
  usd_per_day: "per day (UTC)",
  usd_per_month: "per month (UTC)"
}

const describeLimit = (error: LimitError): Problem => {
  const { kind, limit, retryAfterMs, scope } = error.reason
  const budget = isBudget(kind)
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000))
  const whose = scope === "key" ? "this API key" : "this key's organization"
  const what = isDollarLimit(kind) ? "Spend budget" : budget ? "Token budget" : "Rate limit"
  const amount = isDollarLimit(kind) ? `$${limit}` : String(limit)
  return {
    ...problem({
      status: 429,
      type: budget ? "insufficient_quota" : kind === "rpm" ? "requests" : "tokens",
      code: budget ? "budget_exceeded" : "rate_limit_exceeded",
      message: `${what} reached for ${whose}: ${amount} ${LIMIT_WORDS[kind]}. Retry in ${seconds} s.`
    }),
    retryAfterSeconds: seconds
  }
}

const describeSql = (error: SqlError.SqlError): Problem => {
  switch (error.reason._tag) {
    case "ConnectionError":
    case "AuthenticationError":
    case "LockTimeoutError":
    case "StatementTimeoutError":
    case "DeadlockError":
    case "SerializationError":
      return problem({
        status: 503,
        type: "server_error",
        code: "store_unavailable",
        message: "The gateway's store is unavailable; retry shortly."
      })
    default:
      // a real bug: say so, without internals
      return problem({
        status: 500,
        type: "server_error",
        code: "internal_error",
        message: "The gateway failed unexpectedly."
      })
  }
}

export const describeError = (error: EdgeError): Problem => {
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
      return problem({
        status: 502,
        type: "upstream_error",
        code: "svc_tool_round_limit",
        message:
          `The model kept calling shared tools for ${error.reason.rounds} rounds, the limit (GATEWAY_SVC_TOOL_MAX_ROUNDS); no final answer was produced.`
      })
    case "SqlError":
      return describeSql(error)
    case "LimitError":
      return describeLimit(error)
  }
}

export const internalProblem: Problem = problem({
  status: 500,
  type: "server_error",
  code: "internal_error",
  message: "The gateway failed unexpectedly."
})
