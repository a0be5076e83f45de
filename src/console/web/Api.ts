/**
 * The admin API as the console calls it: same origin, the admin token or a person's personal access
 * token as a bearer (or, signed in by single sign-on, the session's cookie and CSRF token), JSON both ways.
 * Every failure becomes an `ApiError` whose message a person can read: the API's own message when it
 * sent one, otherwise what went wrong on the way.
 *
 * One typed client for every call, derived from the API's definition: its types come from `AdminApi`
 * and its resources (`import type`: nothing of Effect or Node reaches the page), and each endpoint's
 * method and path from the OpenAPI document the gateway serves, so nothing here restates a route.
 */
import type { HttpApi, HttpApiClient, HttpApiEndpoint } from "effect/http-api"
import type { AdminApi } from "../../admin/AdminApi.ts"
import type { CreateKey } from "../../admin/AdminPayloads.ts"
import type {
  AlertSettings,
  AnalyticsGroup,
  ApiKey,
  AuditRecord as AuditRecordSchema,
  BudgetAlert,
  Circuit,
  CreatedApiKey,
  GroupBy,
  Limits,
  LoggedRequest,
  McpServer as McpServerSchema,
  Me as MeSchema,
  Org,
  OrgToolSetting,
  SessionDetail,
  SessionSummary,
  SvcTool,
  User,
  UserToken as UserTokenSchema
} from "../../admin/AdminResources.ts"
import { COMPRESSION_LEVELS, type CompressionLevel } from "../../kernel/CompressionLevel.ts"
import { GROUP_BY } from "../../kernel/GroupBy.ts"
import { session } from "./Session.ts"

export { COMPRESSION_LEVELS, GROUP_BY }
export type {
  AlertSettings,
  AnalyticsGroup,
  ApiKey,
  BudgetAlert,
  Circuit,
  CompressionLevel,
  GroupBy,
  Limits,
  LoggedRequest,
  Org,
  OrgToolSetting as ToolSetting,
  SessionDetail,
  SessionSummary,
  SvcTool,
  User
}
export type CreatedKey = CreatedApiKey
/** A role as a person holds it: `owner` over every organization (no org), `admin` or `viewer` of one. */
export type RoleGrant = User["roles"][number]
/** A remote MCP server the org registered, with its tools as last listed; never its headers' values. */
export type McpServer = typeof McpServerSchema.Type
/** A personal access token as listed: never the token itself. */
export type UserToken = typeof UserTokenSchema.Type
/** Who the admin API takes the caller to be: the admin token, or a person with her roles. */
export type Me = typeof MeSchema.Type
/** One recorded change: when, who, what, and the values before and after. */
export type AuditRecord = typeof AuditRecordSchema.Type

export const LIMIT_FIELDS: ReadonlyArray<
  { readonly field: keyof Limits; readonly label: string; readonly unit: string; readonly dollars?: true }
> = [
  { field: "rpm", label: "Requests per minute", unit: "requests/min" },
  { field: "tpm", label: "Tokens per minute", unit: "tokens/min" },
  { field: "tokens_per_day", label: "Tokens per day", unit: "tokens/day" },
  { field: "tokens_per_month", label: "Tokens per month", unit: "tokens/month" },
  { field: "usd_per_day", label: "Dollars per day", unit: "/day", dollars: true },
  { field: "usd_per_month", label: "Dollars per month", unit: "/month", dollars: true }
]

/** `60 requests/min, 1000000 tokens/day, $20/day`, or `no limits`. */
export const limitsText = (limits: Limits): string => {
  const parts = LIMIT_FIELDS.filter(({ field }) => limits[field] !== null).map(({ dollars, field, unit }) =>
    dollars ? `$${limits[field]}${unit}` : `${limits[field]} ${unit}`
  )
  return parts.length === 0 ? "no limits" : parts.join(", ")
}

/** Whether a key (or a personal access token) works now; an expired one is not revoked, it just stopped. */
export const keyStatus = (
  key: Pick<ApiKey, "revoked_at" | "expires_at">,
  now = Date.now()
): "active" | "revoked" | "expired" => {
  if (key.revoked_at !== null) return "revoked"
  if (key.expires_at !== null && new Date(key.expires_at).getTime() <= now) return "expired"
  return "active"
}

export interface JsonSchema {
  readonly type?: string | ReadonlyArray<string>
  readonly description?: string
  readonly properties?: Readonly<Record<string, JsonSchema>>
  readonly required?: ReadonlyArray<string>
  readonly enum?: ReadonlyArray<unknown>
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

/** Told when the API refuses the token (with its reason), so the page can ask for it again. */
let onUnauthorized: (message: string) => void = () => {}
export const whenUnauthorized = (handler: (message: string) => void) => {
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

type Groups = typeof AdminApi extends HttpApi.HttpApi<infer _Id, infer G> ? G : never
type Group = Groups["identifier"]
type Endpoints<G extends Group> = Extract<Groups, { readonly identifier: G }>["endpoints"]
type Operation<G extends Group> = keyof Endpoints<G> & string
type Endpoint<G extends Group, O extends Operation<G>> = Endpoints<G>[O]
/** What an endpoint takes: its path parameters, query and body, as the API's schemas type them. */
type Input<G extends Group, O extends Operation<G>> = Endpoint<G, O> extends
  infer E extends HttpApiEndpoint.ConstraintRequest
  ? HttpApiEndpoint.ClientRequest<E["~Params"], E["~Query"], E["~Payload"], E["~Headers"], "decoded-only">
  : never
/** What an endpoint answers with on success. */
type Output<G extends Group, O extends Operation<G>> = Endpoint<G, O> extends
  infer E extends HttpApiEndpoint.ConstraintRequest ? HttpApiClient.SuccessType<E["~Success"]>
  : never

interface Route {
  readonly method: string
  /** `/admin/v1/orgs/{org_id}`. */
  readonly path: string
}

/** Each operation's route (`orgs.create` → POST /admin/v1/orgs), read once from the served document. */
let routes: Promise<ReadonlyMap<string, Route>> | undefined
const loadRoutes = () =>
  routes ??= fetch("/admin/v1/openapi.json", { cache: "no-store" }).then(async (response) => {
    if (!response.ok) throw new Error(`openapi.json answered ${response.status}`)
    const document = await response.json() as {
      readonly paths: Record<string, Record<string, { readonly operationId?: string }>>
    }
    const found = new Map<string, Route>()
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (operation.operationId !== undefined) {
          found.set(operation.operationId, { method: method.toUpperCase(), path })
        }
      }
    }
    return found
  }).catch((cause: unknown) => {
    routes = undefined
    throw new ApiError(`Could not read the gateway's API description (${String(cause)}); try again.`, 0)
  })

const queryString = (query: Readonly<Record<string, unknown>> | undefined): string => {
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries(query ?? {})) {
    for (const one of Array.isArray(value) ? value : [value]) {
      if (typeof one === "string" && one !== "") search.append(name, one)
    }
  }
  const text = search.toString()
  return text === "" ? "" : `?${text}`
}

/** Sends one admin API request, by the API's own names; the response as it came, whatever its status. */
const send = async <G extends Group, O extends Operation<G>>(
  group: G,
  operation: O,
  input: Input<G, O>,
  token: string | null
): Promise<Response> => {
  const route = (await loadRoutes()).get(`${group}.${operation}`)
  if (route === undefined) {
    throw new ApiError(`The gateway does not offer ${group}.${operation}; is it older than this page?`, 0)
  }
  const { params, query, payload } = input as {
    readonly params?: Readonly<Record<string, string>>
    readonly query?: Readonly<Record<string, unknown>>
    readonly payload?: unknown
  }
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params?.[name] ?? ""))
  try {
    return await fetch(`${path}${queryString(query)}`, {
      method: route.method,
      headers: {
        ...session.headers(token),
        ...(payload === undefined ? {} : { "content-type": "application/json" })
      },
      ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
      cache: "no-store"
    })
  } catch {
    throw new ApiError("Could not reach the gateway. Check that it is running, then try again.", 0)
  }
}

/** A refusal in the API's own words; a 401 for the kept token signs the page out. */
const refusal = (response: Response, json: unknown, token: string | null): ApiError => {
  const message = messageOf(json, response.status)
  if (response.status === 401 && token === session.token()) onUnauthorized(message)
  return new ApiError(message, response.status)
}

/**
 * One admin API call, by the API's own names: `call("keys", "create", { params, payload })`.
 * `token` is given only by sign-in, which checks a token before keeping it.
 */
export const call = async <G extends Group, O extends Operation<G>>(
  group: G,
  operation: O,
  input: Input<G, O>,
  token = session.token()
): Promise<Output<G, O>> => {
  const response = await send(group, operation, input, token)
  const text = await response.text()
  let json: unknown
  try {
    json = text === "" ? null : JSON.parse(text)
  } catch {
    throw new ApiError(`The gateway answered ${response.status} with a body that is not JSON.`, response.status)
  }
  if (!response.ok) throw refusal(response, json, token)
  return json as Output<G, O>
}

/**
 * An endpoint whose answer is a file (the spend CSV), as a Blob for the page to save. A plain link
 * cannot carry the admin token (it lives in session storage and never in a URL), so the page fetches
 * the file with the token in the header and saves what comes back.
 */
export const callFile = async <G extends Group, O extends Operation<G>>(
  group: G,
  operation: O,
  input: Input<G, O>
): Promise<Blob> => {
  const token = session.token()
  const response = await send(group, operation, input, token)
  if (response.ok) return response.blob()
  let json: unknown = null
  try {
    json = JSON.parse(await response.text())
  } catch {
    // a refusal without a JSON body: its status alone explains it
  }
  throw refusal(response, json, token)
}

/** The audit log's filters, as its query parameters take them. */
export interface AuditFilter {
  /** A user's email or id, `admin_token` or `cli`. */
  readonly actor?: string
  /** `key.create`, `org.update`, ... */
  readonly action?: string
  /** ISO 8601 instants; `to` exclusive. */
  readonly from?: string
  readonly to?: string
}

/** Several tags, separated by commas: requests with any of them. */
const withTags = (filter: LogFilter) => {
  const { tag, ...rest } = filter
  const tags = (tag ?? "").split(",").map((t) => t.trim()).filter((t) => t !== "")
  return tags.length === 0 ? rest : { ...rest, tag: tags }
}

const org = (orgId: string) => ({ params: { org_id: orgId } })
const key = (keyId: string) => ({ params: { key_id: keyId } })

export const api = {
  me: () => call("users", "me", {}),
  /** The org's `limit` (up to 200) latest changes matching the filter, newest first. */
  audit: (orgId: string, filter: AuditFilter, limit: number) =>
    call("audit", "org", { ...org(orgId), query: { ...filter, limit: `${limit}` } }).then((list) => list.data),
  orgs: () => call("orgs", "list", {}).then((list) => list.data),
  createOrg: (name: string) => call("orgs", "create", { payload: { name } }),
  setLogContent: (orgId: string, on: boolean) =>
    call("orgs", "update", { ...org(orgId), payload: { log_content: on } }),
  setCompression: (orgId: string, level: CompressionLevel | null) =>
    call("orgs", "update", { ...org(orgId), payload: { compression: level } }),
  setOrgLimits: (orgId: string, limits: Limits) => call("orgs", "update", { ...org(orgId), payload: { limits } }),
  setKeyLimits: (keyId: string, limits: Limits) => call("keys", "update", { ...key(keyId), payload: { limits } }),
  setAlerts: (orgId: string, alerts: AlertSettings | null) =>
    call("orgs", "update", { ...org(orgId), payload: { alerts } }),
  alerts: (orgId: string) => call("alerts", "list", { ...org(orgId), query: {} }).then((list) => list.data),
  circuits: () => call("circuits", "list", {}).then((list) => list.data),

  users: () => call("users", "list", {}).then((list) => list.data),
  createUser: (email: string, name: string) => call("users", "create", { payload: { email, name } }),
  setUserDisabled: (userId: string, disabled: boolean) =>
    call("users", "update", { params: { user_id: userId }, payload: { disabled } }),
  /** Replaces the roles the caller may give (an org admin: those on her organizations; the rest stay). */
  setUserRoles: (userId: string, roles: ReadonlyArray<RoleGrant>) =>
    call("users", "setRoles", { params: { user_id: userId }, payload: { roles } }),
  tokens: (userId: string) => call("users", "listTokens", { params: { user_id: userId } }).then((list) => list.data),
  /** The answer holds the token: the only time it is ever seen. */
  createToken: (userId: string, name: string, expiresAt: string | null) =>
    call("users", "createToken", {
      params: { user_id: userId },
      payload: expiresAt === null ? { name } : { name, expires_at: expiresAt }
    }),
  revokeToken: (userId: string, tokenId: string) =>
    call("users", "revokeToken", { params: { user_id: userId, token_id: tokenId } }),

  keys: (orgId: string) => call("keys", "list", org(orgId)).then((list) => list.data),
  createKey: (orgId: string, input: CreateKey) => call("keys", "create", { ...org(orgId), payload: input }),
  setAllowedTools: (keyId: string, ids: ReadonlyArray<string> | null) =>
    call("keys", "update", { ...key(keyId), payload: { allowed_svc_tool_ids: ids } }),
  revokeKey: (keyId: string) => call("keys", "revoke", key(keyId)),

  catalogue: () => call("svcTools", "catalogue", {}).then((list) => list.data),
  orgTools: (orgId: string) => call("svcTools", "orgTools", org(orgId)).then((list) => list.data),
  setOrgTool: (
    orgId: string,
    toolId: string,
    change: { activated: boolean; hydrate_org: boolean; hydrate_key_ids: ReadonlyArray<string> }
  ) => call("svcTools", "set", { params: { org_id: orgId, tool_id: toolId }, payload: change }),

  requests: (orgId: string, filter: LogFilter, cursor?: string) =>
    call("requests", "list", {
      ...org(orgId),
      query: { ...withTags(filter), limit: "50", ...(cursor === undefined ? {} : { cursor }) }
    }),
  request: (orgId: string, requestId: string) =>
    call("requests", "get", { params: { org_id: orgId, request_id: requestId } }),
  /** The org's `limit` (up to 200) sessions most recently active in the filter's period, newest first. */
  sessions: async (orgId: string, filter: LogFilter, limit: number) => {
    const list = await call("requests", "sessions", {
      ...org(orgId),
      query: { ...withTags(filter), limit: `${limit}` }
    })
    return list.data
  },
  session: (orgId: string, sessionId: string) =>
    call("requests", "session", { params: { org_id: orgId, session_id: sessionId } }),
  analytics: (orgId: string, groupBy: GroupBy, filter: LogFilter) =>
    call("requests", "analytics", { ...org(orgId), query: { ...withTags(filter), group_by: groupBy } })
}
