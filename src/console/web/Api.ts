/**
 * The admin API as the console calls it: same origin, the admin token as a bearer, JSON both ways.
 * Every failure becomes an `ApiError` whose message a person can read: the API's own message when it
 * sent one, otherwise what went wrong on the way.
 *
 * The types describe the wire as the README documents it. They are written out here rather than
 * imported from the server's modules, which would pull Node and Effect into the page's program; the
 * browser tests run this page against the real API, so a drift between the two fails them.
 */
import { session } from "./Session.ts"

/** Requests and tokens per minute, tokens per UTC day and month; null: no limit of that kind. */
export interface Limits {
  readonly rpm: number | null
  readonly tpm: number | null
  readonly tokens_per_day: number | null
  readonly tokens_per_month: number | null
}

export const LIMIT_FIELDS: ReadonlyArray<
  { readonly field: keyof Limits; readonly label: string; readonly unit: string }
> = [
  { field: "rpm", label: "Requests per minute", unit: "requests/min" },
  { field: "tpm", label: "Tokens per minute", unit: "tokens/min" },
  { field: "tokens_per_day", label: "Tokens per day", unit: "tokens/day" },
  { field: "tokens_per_month", label: "Tokens per month", unit: "tokens/month" }
]

/** `60 requests/min, 1000000 tokens/day`, or `no limits`. */
export const limitsText = (limits: Limits): string => {
  const parts = LIMIT_FIELDS.filter(({ field }) => limits[field] !== null).map(({ field, unit }) =>
    `${limits[field]} ${unit}`
  )
  return parts.length === 0 ? "no limits" : parts.join(", ")
}

/** A target whose circuit breaker left `closed`. */
export interface Circuit {
  readonly target: string
  readonly state: "closed" | "half_open" | "open"
}

export interface Org {
  readonly id: string
  readonly name: string
  readonly created_at: string
  readonly log_content: boolean
  /** null: the gateway's level (GATEWAY_COMPRESSION). */
  readonly compression: CompressionLevel | null
  readonly limits: Limits
}

export const COMPRESSION_LEVELS = ["off", "shadow", "safe", "aggressive"] as const
export type CompressionLevel = (typeof COMPRESSION_LEVELS)[number]

export interface ApiKey {
  readonly id: string
  readonly org_id: string
  readonly name: string
  readonly prefix: string
  readonly created_at: string
  readonly expires_at: string | null
  readonly revoked_at: string | null
  readonly last_used_at: string | null
  readonly limits: Limits
  /** null: every shared tool activated for the org. */
  readonly allowed_svc_tool_ids: ReadonlyArray<string> | null
}

/** Whether a key works now; an expired key is not revoked, it just stopped. */
export const keyStatus = (key: ApiKey, now = Date.now()): "active" | "revoked" | "expired" => {
  if (key.revoked_at !== null) return "revoked"
  if (key.expires_at !== null && new Date(key.expires_at).getTime() <= now) return "expired"
  return "active"
}

export interface CreatedKey extends ApiKey {
  /** The secret: in this one response only. */
  readonly key: string
}

export interface SvcTool {
  readonly id: string
  readonly description: string
  readonly parameters: JsonSchema
}

export interface JsonSchema {
  readonly type?: string | ReadonlyArray<string>
  readonly description?: string
  readonly properties?: Readonly<Record<string, JsonSchema>>
  readonly required?: ReadonlyArray<string>
  readonly enum?: ReadonlyArray<unknown>
}

export interface ToolSetting {
  readonly id: string
  readonly activated: boolean
  readonly hydrate_org: boolean
  readonly hydrate_key_ids: ReadonlyArray<string>
}

export interface LoggedRequest {
  readonly id: string
  readonly created_at: string
  readonly key_id: string | null
  readonly requested_model: string | null
  readonly model: string | null
  readonly provider: string | null
  readonly status: number
  readonly error_code: string | null
  readonly stream: boolean
  readonly tags: ReadonlyArray<string>
  readonly prompt_tokens: number
  readonly completion_tokens: number
  readonly cached_tokens: number
  readonly reasoning_tokens: number
  readonly total_tokens: number
  readonly svc_tools: ReadonlyArray<string>
  readonly attempts: number
  readonly latency_ms: number
  readonly ttft_ms: number | null
  readonly compression_level: CompressionLevel | null
  readonly prompt_tokens_saved: number | null
  readonly prompt_tokens_saved_net: number | null
  readonly shadow_tokens_saved_safe: number | null
  readonly shadow_tokens_saved_aggressive: number | null
  readonly user_agent: string | null
  /** The client's session (Claude Code's `X-Claude-Code-Session-Id`). */
  readonly session_id: string | null
  readonly prompt_text?: string
  readonly completion_text?: string
}

export interface RequestPage {
  readonly data: ReadonlyArray<LoggedRequest>
  readonly next_cursor: string | null
}

export type GroupBy = "none" | "tag" | "model" | "key" | "session" | "hour" | "day" | "status"

export interface AnalyticsGroup {
  readonly group: string | null
  readonly requests: number
  readonly errors: number
  readonly prompt_tokens: number
  readonly completion_tokens: number
  readonly total_tokens: number
  readonly prompt_tokens_saved: number
  readonly prompt_tokens_saved_net: number
  readonly shadow_tokens_saved_safe: number
  readonly shadow_tokens_saved_aggressive: number
  readonly p50_latency_ms: number
  readonly p95_latency_ms: number
}

export interface Analytics {
  readonly data: ReadonlyArray<AnalyticsGroup>
  readonly has_more: boolean
}

/** The filters the request list and analytics share, as the API's query parameters take them. */
export interface LogFilter {
  readonly tag?: string
  readonly model?: string
  readonly key_id?: string
  readonly session_id?: string
  readonly status?: string
  /** ISO 8601 instants. */
  readonly from?: string
  readonly to?: string
}

export class ApiError extends Error {
  readonly status: number
  constructor(message: string, status: number) {
    super(message)
    this.status = status
  }
}

/** Told when the API refuses the token, so the page can ask for it again. */
let onUnauthorized: () => void = () => {}
export const whenUnauthorized = (handler: () => void) => {
  onUnauthorized = handler
}

const messageOf = (body: unknown, status: number): string => {
  if (typeof body === "object" && body !== null && "error" in body) {
    const error = (body as { error: unknown }).error
    if (typeof error === "object" && error !== null && "message" in error && typeof error.message === "string") {
      return error.message
    }
  }
  return `The gateway answered ${status} without an explanation.`
}

/** One admin API call; `token` is given only by sign-in, which checks a token before keeping it. */
export const call = async <A>(
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
  path: string,
  body?: unknown,
  token = session.token()
): Promise<A> => {
  let response: Response
  try {
    response = await fetch(`/admin/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token ?? ""}`,
        ...(body === undefined ? {} : { "content-type": "application/json" })
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      cache: "no-store"
    })
  } catch {
    throw new ApiError("Could not reach the gateway. Check that it is running, then try again.", 0)
  }
  const text = await response.text()
  let json: unknown
  try {
    json = text === "" ? null : JSON.parse(text)
  } catch {
    throw new ApiError(`The gateway answered ${response.status} with a body that is not JSON.`, response.status)
  }
  if (!response.ok) {
    const error = new ApiError(messageOf(json, response.status), response.status)
    if (response.status === 401 && token === session.token()) onUnauthorized()
    throw error
  }
  return json as A
}

const query = (params: Readonly<Record<string, string | undefined>>): string => {
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries(params)) {
    if (name === "tag" && value !== undefined) {
      // several tags, separated by commas: requests with any of them
      for (const tag of value.split(",").map((t) => t.trim()).filter((t) => t !== "")) search.append("tag", tag)
    } else if (value !== undefined && value !== "") {
      search.set(name, value)
    }
  }
  const text = search.toString()
  return text === "" ? "" : `?${text}`
}

const org = (orgId: string) => `/orgs/${encodeURIComponent(orgId)}`

export const api = {
  orgs: () => call<{ data: ReadonlyArray<Org> }>("GET", "/orgs").then((list) => list.data),
  createOrg: (name: string) => call<Org>("POST", "/orgs", { name }),
  setLogContent: (orgId: string, on: boolean) => call<Org>("PATCH", org(orgId), { log_content: on }),
  setCompression: (orgId: string, level: CompressionLevel | null) =>
    call<Org>("PATCH", org(orgId), { compression: level }),
  setOrgLimits: (orgId: string, limits: Limits) => call<Org>("PATCH", org(orgId), { limits }),
  setKeyLimits: (keyId: string, limits: Limits) =>
    call<ApiKey>("PATCH", `/keys/${encodeURIComponent(keyId)}`, { limits }),
  circuits: () => call<{ data: ReadonlyArray<Circuit> }>("GET", "/circuits").then((list) => list.data),

  keys: (orgId: string) => call<{ data: ReadonlyArray<ApiKey> }>("GET", `${org(orgId)}/keys`).then((list) => list.data),
  createKey: (
    orgId: string,
    input: { name: string; expires_at: string | null; allowed_svc_tool_ids: ReadonlyArray<string> | null }
  ) => call<CreatedKey>("POST", `${org(orgId)}/keys`, input),
  setAllowedTools: (keyId: string, ids: ReadonlyArray<string> | null) =>
    call<ApiKey>("PATCH", `/keys/${encodeURIComponent(keyId)}`, { allowed_svc_tool_ids: ids }),
  revokeKey: (keyId: string) => call<ApiKey>("DELETE", `/keys/${encodeURIComponent(keyId)}`),

  catalogue: () => call<{ data: ReadonlyArray<SvcTool> }>("GET", "/svc-tools").then((list) => list.data),
  orgTools: (orgId: string) =>
    call<{ data: ReadonlyArray<ToolSetting> }>("GET", `${org(orgId)}/svc-tools`).then((list) => list.data),
  setOrgTool: (
    orgId: string,
    toolId: string,
    change: { activated: boolean; hydrate_org: boolean; hydrate_key_ids: ReadonlyArray<string> }
  ) => call<ToolSetting>("PUT", `${org(orgId)}/svc-tools/${encodeURIComponent(toolId)}`, change),

  requests: (orgId: string, filter: LogFilter, cursor?: string) =>
    call<RequestPage>("GET", `${org(orgId)}/requests${query({ ...filter, limit: "50", cursor })}`),
  request: (orgId: string, requestId: string) =>
    call<LoggedRequest>("GET", `${org(orgId)}/requests/${encodeURIComponent(requestId)}`),
  analytics: (orgId: string, groupBy: GroupBy, filter: LogFilter) =>
    call<Analytics>("GET", `${org(orgId)}/analytics${query({ ...filter, group_by: groupBy })}`)
}
