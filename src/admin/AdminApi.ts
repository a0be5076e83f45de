/**
 * The admin API under `/admin/v1`, defined once: the server's routes (`http/AdminHandlers.ts`), the
 * CLI's client (`cli/AdminClient.ts`, over HTTP or in process), the console's types and the OpenAPI
 * document (`GET /admin/v1/openapi.json`, read at `/admin/v1/docs`) all come from this value. Every
 * route needs `Authorization: Bearer <admin token>`; lists come as `{"object":"list","data":[...]}`;
 * failures as `{"error":{"message","type","param","code"}}`.
 */
import { Schema } from "effect"
import {
  HttpApi,
  HttpApiEndpoint,
  HttpApiGroup,
  HttpApiMiddleware,
  HttpApiSchema,
  HttpApiSecurity,
  OpenApi
} from "effect/http-api"
import { SESSION_COOKIE } from "../kernel/ConsoleCookie.ts"
import type { CurrentPrincipal } from "../kernel/Principal.ts"
import { ADMIN_API_ERRORS, Forbidden, StoreUnavailable, Unauthorized } from "./AdminApiErrors.ts"
import {
  AnalyticsQuery,
  CreateKey,
  CreateMcpServer,
  CreateOrg,
  CreateUser,
  CreateUserToken,
  OrgUpdate,
  RequestListQuery,
  SessionsQuery,
  SetOrgTool,
  SetRoles,
  UpdateKey,
  UpdateUser
} from "./AdminPayloads.ts"
import {
  Analytics,
  ApiKey,
  AuditRecord,
  BudgetAlert,
  Circuit,
  CreatedApiKey,
  CreatedUserToken,
  ListOf,
  LoggedRequest,
  McpAuthorization,
  McpServer,
  Me,
  ModelPriceInfo,
  Org,
  OrgToolSetting,
  RequestPage,
  SessionDetail,
  SessionSummary,
  SpendReport,
  SvcTool,
  User,
  UserToken
} from "./AdminResources.ts"

/**
 * The admin token or a person's personal access token, as a bearer, or a console signed in by single
 * sign-on, by its session cookie (with its CSRF token on every change); checked before anything else,
 * it gives the handlers the caller (`CurrentPrincipal`), whose role each handler checks.
 */
export class AdminAuthorization extends HttpApiMiddleware.Service<AdminAuthorization, { provides: CurrentPrincipal }>()(
  "svc-gateway/AdminAuthorization",
  {
    error: [Unauthorized, Forbidden, StoreUnavailable],
    security: {
      bearer: HttpApiSecurity.bearer,
      session: HttpApiSecurity.apiKey({ key: SESSION_COOKIE, in: "cookie" })
    }
  }
) {}

/**
 * Input that does not fit an endpoint's schema, answered as every other refusal is; it also declares
 * the failures every admin route shares.
 */
export class AdminFailures extends HttpApiMiddleware.Service<AdminFailures>()("svc-gateway/AdminFailures", {
  error: ADMIN_API_ERRORS
}) {}

const OrgId = { org_id: Schema.String }
const KeyId = { key_id: Schema.String }

const summary = OpenApi.Summary

export const OrgsGroup = HttpApiGroup.make("orgs")
  .add(
    HttpApiEndpoint.post("create", "/orgs", { payload: CreateOrg, success: Org.pipe(HttpApiSchema.status(201)) })
      .annotate(summary, "Create an organization")
  )
  .add(HttpApiEndpoint.get("list", "/orgs", { success: ListOf(Org) }).annotate(summary, "List organizations"))
  .add(
    HttpApiEndpoint.get("get", "/orgs/:org_id", { params: OrgId, success: Org }).annotate(summary, "One organization")
  )
  .add(
    HttpApiEndpoint.patch("update", "/orgs/:org_id", { params: OrgId, payload: OrgUpdate, success: Org }).annotate(
      summary,
      "Change an organization's content logging, compression level, limits or budget alerts"
    )
  )

export const KeysGroup = HttpApiGroup.make("keys")
  .add(
    HttpApiEndpoint.post("create", "/orgs/:org_id/keys", {
      params: OrgId,
      payload: CreateKey,
      success: CreatedApiKey.pipe(HttpApiSchema.status(201))
    }).annotate(summary, "Create an API key; the answer holds its secret, shown once")
  )
  .add(
    HttpApiEndpoint.get("list", "/orgs/:org_id/keys", { params: OrgId, success: ListOf(ApiKey) }).annotate(
      summary,
      "List an organization's keys"
    )
  )
  .add(HttpApiEndpoint.get("get", "/keys/:key_id", { params: KeyId, success: ApiKey }).annotate(summary, "One key"))
  .add(
    HttpApiEndpoint.patch("update", "/keys/:key_id", { params: KeyId, payload: UpdateKey, success: ApiKey })
      .annotate(summary, "Change a key; the fields left out stay as they are")
  )
  .add(
    HttpApiEndpoint.delete("revoke", "/keys/:key_id", { params: KeyId, success: ApiKey }).annotate(
      summary,
      "Revoke a key, at once and for good"
    )
  )

export const SvcToolsGroup = HttpApiGroup.make("svcTools")
  .add(
    HttpApiEndpoint.get("catalogue", "/svc-tools", { success: ListOf(SvcTool) }).annotate(
      summary,
      "The installed shared tools"
    )
  )
  .add(
    HttpApiEndpoint.get("orgTools", "/orgs/:org_id/svc-tools", { params: OrgId, success: ListOf(OrgToolSetting) })
      .annotate(summary, "Every installed tool with the organization's settings")
  )
  .add(
    HttpApiEndpoint.put("set", "/orgs/:org_id/svc-tools/:tool_id", {
      params: { ...OrgId, tool_id: Schema.String },
      payload: SetOrgTool,
      success: OrgToolSetting
    }).annotate(summary, "Activate or deactivate a tool for an organization, and choose where it is hydrated")
  )

export const RequestsGroup = HttpApiGroup.make("requests")
  .add(
    HttpApiEndpoint.get("list", "/orgs/:org_id/requests", {
      params: OrgId,
      query: RequestListQuery,
      success: RequestPage
    })
      .annotate(summary, "A page of the organization's request log, newest first")
  )
  .add(
    HttpApiEndpoint.get("get", "/orgs/:org_id/requests/:request_id", {
      params: { ...OrgId, request_id: Schema.String },
      success: LoggedRequest
    }).annotate(summary, "One request")
  )
  .add(
    HttpApiEndpoint.get("analytics", "/orgs/:org_id/analytics", {
      params: OrgId,
      query: AnalyticsQuery,
      success: Analytics
    }).annotate(summary, "The matching requests' counts, tokens and latencies, per group")
  )
  .add(
    HttpApiEndpoint.get("spend", "/orgs/:org_id/spend", { params: OrgId, query: AnalyticsQuery, success: SpendReport })
      .annotate(summary, "The matching requests' cost per UTC day and group, for export")
  )
  .add(
    HttpApiEndpoint.get("spendCsv", "/orgs/:org_id/spend.csv", {
      params: OrgId,
      query: AnalyticsQuery,
      success: Schema.String.pipe(HttpApiSchema.asText({ contentType: "text/csv" }))
    }).annotate(summary, "The same as CSV: day, group, requests, unpriced_requests, tokens, cost_usd")
  )
  .add(
    HttpApiEndpoint.get("sessions", "/orgs/:org_id/sessions", {
      params: OrgId,
      query: SessionsQuery,
      success: ListOf(SessionSummary)
    }).annotate(summary, "The organization's client sessions (coding agents), newest activity first")
  )
  .add(
    HttpApiEndpoint.get("session", "/orgs/:org_id/sessions/:session_id", {
      params: { ...OrgId, session_id: Schema.String },
      success: SessionDetail
    }).annotate(summary, "One session: its sums and its requests as a timeline")
  )
  .add(
    HttpApiEndpoint.get("analyticsAll", "/analytics", { query: AnalyticsQuery, success: Analytics }).annotate(
      summary,
      "Every organization's matching requests per group (group_by=org: per organization)"
    )
  )
  .add(
    HttpApiEndpoint.get("spendAll", "/spend", { query: AnalyticsQuery, success: SpendReport }).annotate(
      summary,
      "Every organization's cost per UTC day and group (group_by=org: per organization)"
    )
  )
  .add(
    HttpApiEndpoint.get("spendAllCsv", "/spend.csv", {
      query: AnalyticsQuery,
      success: Schema.String.pipe(HttpApiSchema.asText({ contentType: "text/csv" }))
    }).annotate(summary, "The same as CSV")
  )

export const CircuitsGroup = HttpApiGroup.make("circuits").add(
  HttpApiEndpoint.get("list", "/circuits", { success: ListOf(Circuit) }).annotate(
    summary,
    "Every upstream target whose circuit has left closed on this instance"
  )
)

export const PricesGroup = HttpApiGroup.make("prices").add(
  HttpApiEndpoint.get("list", "/prices", { success: ListOf(ModelPriceInfo) }).annotate(
    summary,
    "The effective price of every routable model, and where it comes from"
  )
)

export const AlertsGroup = HttpApiGroup.make("alerts").add(
  HttpApiEndpoint.get("list", "/orgs/:org_id/alerts", {
    params: OrgId,
    query: { limit: Schema.optional(Schema.String).annotate({ description: "1..200, default 50" }) },
    success: ListOf(BudgetAlert)
  }).annotate(summary, "The org's budget alerts, newest first, with how their webhook delivery went")
)

const UserId = { user_id: Schema.String }

export const UsersGroup = HttpApiGroup.make("users")
  .add(
    HttpApiEndpoint.post("create", "/users", { payload: CreateUser, success: User.pipe(HttpApiSchema.status(201)) })
      .annotate(summary, "Create a user (owner)")
  )
  .add(
    HttpApiEndpoint.get("list", "/users", { success: ListOf(User) }).annotate(
      summary,
      "List users (owner; an org admin sees them with their roles on her organizations only)"
    )
  )
  .add(HttpApiEndpoint.get("get", "/users/:user_id", { params: UserId, success: User }).annotate(summary, "One user"))
  .add(
    HttpApiEndpoint.patch("update", "/users/:user_id", { params: UserId, payload: UpdateUser, success: User })
      .annotate(summary, "Rename, disable or enable a user (owner)")
  )
  .add(
    HttpApiEndpoint.put("setRoles", "/users/:user_id/roles", { params: UserId, payload: SetRoles, success: User })
      .annotate(
        summary,
        "Set a user's roles; an org admin sets roles on her own organizations only, and no owner role"
      )
  )
  .add(
    HttpApiEndpoint.post("createToken", "/users/:user_id/tokens", {
      params: UserId,
      payload: CreateUserToken,
      success: CreatedUserToken.pipe(HttpApiSchema.status(201))
    }).annotate(summary, "Make a personal access token (the user herself, or an owner); shown once")
  )
  .add(
    HttpApiEndpoint.get("listTokens", "/users/:user_id/tokens", { params: UserId, success: ListOf(UserToken) })
      .annotate(summary, "A user's personal access tokens, never the tokens themselves")
  )
  .add(
    HttpApiEndpoint.delete("revokeToken", "/users/:user_id/tokens/:token_id", {
      params: { ...UserId, token_id: Schema.String },
      success: UserToken
    }).annotate(summary, "Revoke a personal access token")
  )
  .add(
    HttpApiEndpoint.get("me", "/me", { success: Me }).annotate(summary, "Who the admin API takes the caller to be")
  )

const AuditQuery = {
  actor: Schema.optional(Schema.String).annotate({ description: "A user's id or email, or admin_token, or cli" }),
  action: Schema.optional(Schema.String).annotate({ description: "org.update, key.revoke, user.roles, ..." }),
  from: Schema.optional(Schema.String).annotate({ description: "ISO 8601, inclusive" }),
  to: Schema.optional(Schema.String).annotate({ description: "ISO 8601, exclusive" }),
  limit: Schema.optional(Schema.String).annotate({ description: "1..200, default 50" })
}

export const AuditGroup = HttpApiGroup.make("audit")
  .add(
    HttpApiEndpoint.get("list", "/audit", { query: AuditQuery, success: ListOf(AuditRecord) }).annotate(
      summary,
      "Every change made through the admin API, CLI or console, newest first (owner)"
    )
  )
  .add(
    HttpApiEndpoint.get("org", "/orgs/:org_id/audit", {
      params: OrgId,
      query: AuditQuery,
      success: ListOf(AuditRecord)
    })
      .annotate(summary, "The changes to one organization, newest first (its admins)")
  )

const McpServerParams = { ...OrgId, server_id: Schema.String }

export const McpServersGroup = HttpApiGroup.make("mcpServers")
  .add(
    HttpApiEndpoint.get("list", "/orgs/:org_id/mcp-servers", { params: OrgId, success: ListOf(McpServer) })
      .annotate(summary, "The remote MCP servers the organization registered, with their tools")
  )
  .add(
    HttpApiEndpoint.post("create", "/orgs/:org_id/mcp-servers", {
      params: OrgId,
      payload: CreateMcpServer,
      success: McpServer.pipe(HttpApiSchema.status(201))
    }).annotate(summary, "Register a remote MCP server; its tools become the organization's shared tools")
  )
  .add(
    HttpApiEndpoint.post("refresh", "/orgs/:org_id/mcp-servers/:server_id/refresh", {
      params: McpServerParams,
      success: McpServer
    }).annotate(summary, "Ask the server for its tools again now")
  )
  .add(
    HttpApiEndpoint.post("authorize", "/orgs/:org_id/mcp-servers/:server_id/authorize", {
      params: McpServerParams,
      success: McpAuthorization
    }).annotate(
      summary,
      "Begin authorizing the gateway at an OAuth server: send the browser to authorization_url (sets a cookie)"
    )
  )
  .add(
    HttpApiEndpoint.delete("remove", "/orgs/:org_id/mcp-servers/:server_id", {
      params: McpServerParams,
      success: McpServer
    }).annotate(summary, "Remove the server and its tools")
  )

export const AdminApi = HttpApi.make("admin")
  .add(OrgsGroup)
  .add(KeysGroup)
  .add(SvcToolsGroup)
  .add(RequestsGroup)
  .add(CircuitsGroup)
  .add(PricesGroup)
  .add(AlertsGroup)
  .add(UsersGroup)
  .add(AuditGroup)
  .add(McpServersGroup)
  .middleware(AdminFailures)
  .middleware(AdminAuthorization)
  .prefix("/admin/v1")
  .annotate(OpenApi.Title, "svc-gateway admin API")
  .annotate(OpenApi.Version, "1")
  .annotate(
    OpenApi.Description,
    "Organizations, API keys, shared tools, the request log and analytics, users and roles. Every route " +
      "needs `Authorization: Bearer <token>`: the admin token (GATEWAY_ADMIN_TOKEN, an owner), or a " +
      "person's personal access token, which may do what the person's roles allow (403 otherwise)."
  )

export const OPENAPI_PATH = "/admin/v1/openapi.json"
