/**
 * The admin client over a running gateway's admin API. Responses are checked against the admin API's
 * shapes and then kept as they came, so `--json` prints what the API sent (fields the CLI does not know
 * yet included); transport failures and error bodies become `AdminClientError`s here, where they enter.
 */
import { Duration, Effect, Redacted, Schema } from "effect"
import { HttpClient, type HttpClientError, HttpClientRequest, type HttpClientResponse } from "effect/http"
import { COMPRESSION_LEVELS } from "../kernel/CompressionLevel.ts"
import { GROUP_BY } from "../logs/RequestFilter.ts"
import { AdminClientError } from "./AdminClientError.ts"
import type { AdminClientShape, KeyInput, KeyUpdate } from "./AdminClientShape.ts"
import { analyticsParams, listParams, queryString } from "./LogQuery.ts"

export interface HttpOptions {
  /** The gateway's base URL, e.g. `http://127.0.0.1:8080`; `/admin/v1` is appended. */
  readonly url: string
  readonly adminToken: Redacted.Redacted<string>
  /** Budget for one call, connection included. */
  readonly timeout?: Duration.Input
}

/** The admin API's JSON shapes, checked on every answer (and by the CLI tests on its --json output). */
const LimitsWire = Schema.Struct({
  rpm: Schema.NullOr(Schema.Number),
  tpm: Schema.NullOr(Schema.Number),
  tokens_per_day: Schema.NullOr(Schema.Number),
  tokens_per_month: Schema.NullOr(Schema.Number)
})

export const OrgWire = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  created_at: Schema.String,
  log_content: Schema.Boolean,
  compression: Schema.NullOr(Schema.Literals(COMPRESSION_LEVELS)),
  limits: LimitsWire
})

const keyInfoFields = {
  id: Schema.String,
  org_id: Schema.String,
  name: Schema.String,
  prefix: Schema.String,
  created_at: Schema.String,
  expires_at: Schema.NullOr(Schema.String),
  revoked_at: Schema.NullOr(Schema.String),
  last_used_at: Schema.NullOr(Schema.String),
  allowed_svc_tool_ids: Schema.NullOr(Schema.Array(Schema.String)),
  limits: LimitsWire
}
export const KeyInfoWire = Schema.Struct(keyInfoFields)
export const CreatedKeyWire = Schema.Struct({ ...keyInfoFields, key: Schema.String })

const SvcToolWire = Schema.Struct({
  id: Schema.String,
  description: Schema.String,
  parameters: Schema.Record(Schema.String, Schema.Unknown)
})

const OrgToolWire = Schema.Struct({
  id: Schema.String,
  activated: Schema.Boolean,
  hydrate_org: Schema.Boolean,
  hydrate_key_ids: Schema.Array(Schema.String)
})

const ListOf = <S extends Schema.Top>(item: S) =>
  Schema.Struct({ object: Schema.Literal("list"), data: Schema.Array(item) })

/** One request-log row as `GET /admin/v1/orgs/{org_id}/requests[/{request_id}]` shows it. */
export const RequestWire = Schema.Struct({
  id: Schema.String,
  created_at: Schema.String,
  org_id: Schema.NullOr(Schema.String),
  key_id: Schema.NullOr(Schema.String),
  requested_model: Schema.NullOr(Schema.String),
  model: Schema.NullOr(Schema.String),
  provider: Schema.NullOr(Schema.String),
  status: Schema.Number,
  error_code: Schema.NullOr(Schema.String),
  stream: Schema.Boolean,
  tags: Schema.Array(Schema.String),
  prompt_tokens: Schema.Number,
  completion_tokens: Schema.Number,
  cached_tokens: Schema.Number,
  reasoning_tokens: Schema.Number,
  total_tokens: Schema.Number,
  svc_tools: Schema.Array(Schema.String),
  attempts: Schema.Number,
  latency_ms: Schema.Number,
  ttft_ms: Schema.NullOr(Schema.Number),
  compression_level: Schema.NullOr(Schema.String),
  prompt_tokens_saved: Schema.NullOr(Schema.Number),
  prompt_tokens_saved_net: Schema.NullOr(Schema.Number),
  shadow_tokens_saved_safe: Schema.NullOr(Schema.Number),
  shadow_tokens_saved_aggressive: Schema.NullOr(Schema.Number),
  user_agent: Schema.NullOr(Schema.String),
  session_id: Schema.NullOr(Schema.String),
  prompt_text: Schema.optionalKey(Schema.String),
  completion_text: Schema.optionalKey(Schema.String)
})

export const RequestPageWire = Schema.Struct({
  object: Schema.Literal("list"),
  data: Schema.Array(RequestWire),
  next_cursor: Schema.NullOr(Schema.String)
})

export const AnalyticsWire = Schema.Struct({
  object: Schema.Literal("list"),
  group_by: Schema.Literals(GROUP_BY),
  data: Schema.Array(Schema.Struct({
    group: Schema.NullOr(Schema.String),
    requests: Schema.Number,
    errors: Schema.Number,
    prompt_tokens: Schema.Number,
    completion_tokens: Schema.Number,
    cached_tokens: Schema.Number,
    reasoning_tokens: Schema.Number,
    total_tokens: Schema.Number,
    prompt_tokens_saved: Schema.Number,
    prompt_tokens_saved_net: Schema.Number,
    shadow_tokens_saved_safe: Schema.Number,
    shadow_tokens_saved_aggressive: Schema.Number,
    p50_latency_ms: Schema.Number,
    p95_latency_ms: Schema.Number
  })),
  has_more: Schema.Boolean
})

const isError = Schema.is(Schema.Struct({ error: Schema.Struct({ message: Schema.String }) }))

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

/** A non-2xx answer in CLI terms; the gateway's own message is kept wherever it makes sense. */
const fromStatus = (status: number, message: string, base: string): AdminClientError => {
  if (status === 404) return AdminClientError.notFound(message)
  if (status === 400 || status === 413 || status === 422) return AdminClientError.invalidInput(message)
  if (status === 401 || status === 403) {
    return AdminClientError.refused(
      `The gateway at ${base} refused the admin token: check --admin-token or GATEWAY_ADMIN_TOKEN.`
    )
  }
  if (status >= 500) return AdminClientError.unavailable(`The gateway at ${base} failed (${status}): ${message}`)
  return AdminClientError.refused(message)
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

export const makeHttpAdmin = (options: HttpOptions) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const base = normalizeBaseUrl(options.url) ?? options.url
    const timeout = options.timeout ?? Duration.seconds(30)

    const unexpected = (status: number) =>
      AdminClientError.unavailable(
        `The server at ${base} answered ${status} with an unexpected body; is --url the gateway's address?`
      )

    const readJson = (response: HttpClientResponse.HttpClientResponse) =>
      response.json.pipe(Effect.mapError(() => unexpected(response.status)))

    /** Sends one admin call and checks a 2xx body against `schema`; anything else fails with a reason. */
    const call = <S extends Schema.Top>(
      schema: S,
      method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
      path: string,
      body?: unknown
    ): Effect.Effect<S["Type"], AdminClientError> =>
      Effect.gen(function*() {
        let request = HttpClientRequest.make(method)(`${base}/admin/v1${path}`).pipe(
          HttpClientRequest.bearerToken(Redacted.value(options.adminToken)),
          HttpClientRequest.acceptJson
        )
        if (body !== undefined) request = HttpClientRequest.bodyJsonUnsafe(request, body)
        const response = yield* client.execute(request).pipe(
          Effect.catchTag("HttpClientError", (error) =>
            Effect.fail(
              AdminClientError.unavailable(`Could not reach the gateway at ${base}: ${transportDetail(error)}.`)
            ))
        )
        const json = yield* readJson(response)
        if (response.status < 200 || response.status >= 300) {
          if (!isError(json)) return yield* unexpected(response.status)
          return yield* fromStatus(response.status, json.error.message, base)
        }
        if (!Schema.is(schema)(json)) {
          return yield* unexpected(response.status)
        }
        return json
      }).pipe(
        // the whole call, body included: a gateway that accepts and then stalls must not hang the CLI
        Effect.timeoutOrElse({
          duration: timeout,
          orElse: () => Effect.fail(AdminClientError.unavailable(`The gateway at ${base} did not answer in time.`))
        })
      )

    const id = encodeURIComponent

    const shape: AdminClientShape = {
      createOrg: (name) => call(OrgWire, "POST", "/orgs", { name }).pipe(Effect.withSpan("AdminClient.createOrg")),
      listOrgs: call(ListOf(OrgWire), "GET", "/orgs").pipe(
        Effect.map((list) => list.data),
        Effect.withSpan("AdminClient.listOrgs")
      ),
      createKey: (orgId: string, input: KeyInput) =>
        call(CreatedKeyWire, "POST", `/orgs/${id(orgId)}/keys`, {
          name: input.name,
          expires_at: input.expiresAt,
          ...(input.allowedSvcToolIds === undefined ? {} : { allowed_svc_tool_ids: input.allowedSvcToolIds })
        }).pipe(Effect.withSpan("AdminClient.createKey")),
      listKeys: (orgId) =>
        call(ListOf(KeyInfoWire), "GET", `/orgs/${id(orgId)}/keys`).pipe(
          Effect.map((list) => list.data),
          Effect.withSpan("AdminClient.listKeys")
        ),
      revokeKey: (keyId) =>
        call(KeyInfoWire, "DELETE", `/keys/${id(keyId)}`).pipe(Effect.withSpan("AdminClient.revokeKey")),
      updateKey: (keyId: string, update: KeyUpdate) =>
        call(KeyInfoWire, "PATCH", `/keys/${id(keyId)}`, {
          ...(update.name === undefined ? {} : { name: update.name }),
          ...(update.expiresAt === undefined ? {} : { expires_at: update.expiresAt }),
          ...(update.allowedSvcToolIds === undefined ? {} : { allowed_svc_tool_ids: update.allowedSvcToolIds }),
          ...(update.limits === undefined ? {} : { limits: update.limits })
        }).pipe(Effect.withSpan("AdminClient.updateKey")),
      listTools: call(ListOf(SvcToolWire), "GET", "/svc-tools").pipe(
        Effect.map((list) => list.data),
        Effect.withSpan("AdminClient.listTools")
      ),
      orgTools: (orgId) =>
        call(ListOf(OrgToolWire), "GET", `/orgs/${id(orgId)}/svc-tools`).pipe(
          Effect.map((list) => list.data),
          Effect.withSpan("AdminClient.orgTools")
        ),
      setOrgTool: (orgId, toolId, change) =>
        call(OrgToolWire, "PUT", `/orgs/${id(orgId)}/svc-tools/${id(toolId)}`, {
          activated: change.activated,
          ...(change.hydrateOrg === undefined ? {} : { hydrate_org: change.hydrateOrg }),
          ...(change.hydrateKeyIds === undefined ? {} : { hydrate_key_ids: change.hydrateKeyIds })
        }).pipe(Effect.withSpan("AdminClient.setOrgTool")),
      updateOrg: (orgId, update) =>
        call(OrgWire, "PATCH", `/orgs/${id(orgId)}`, update).pipe(Effect.withSpan("AdminClient.updateOrg")),
      listRequests: (orgId, input) =>
        call(RequestPageWire, "GET", `/orgs/${id(orgId)}/requests${queryString(listParams(input))}`).pipe(
          Effect.withSpan("AdminClient.listRequests")
        ),
      getRequest: (orgId, requestId) =>
        call(RequestWire, "GET", `/orgs/${id(orgId)}/requests/${id(requestId)}`).pipe(
          Effect.withSpan("AdminClient.getRequest")
        ),
      analytics: (orgId, groupBy, input) =>
        call(AnalyticsWire, "GET", `/orgs/${id(orgId)}/analytics${queryString(analyticsParams(groupBy, input))}`).pipe(
          Effect.withSpan("AdminClient.analytics")
        )
    }
    return shape
  })
