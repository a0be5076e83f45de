/**
 * What the admin API answers, one schema per resource: the server encodes with them, the CLI decodes
 * with them, the console takes their types (`import type`), and the OpenAPI document describes them.
 * Field names are the wire's (snake_case); times are ISO 8601 text.
 */
import { Schema } from "effect"
import { COMPRESSION_LEVELS } from "../kernel/CompressionLevel.ts"
import { GROUP_BY } from "../kernel/GroupBy.ts"
import { ROLES } from "../kernel/Roles.ts"
import { REQUEST_KINDS } from "../logs/RequestRecord.ts"

const Count = Schema.Number
const NullableTime = Schema.NullOr(Schema.String)

/** Requests and tokens per minute, tokens and dollars per UTC day and month; null: no limit of that kind. */
export const Limits = Schema.Struct({
  rpm: Schema.NullOr(Count),
  tpm: Schema.NullOr(Count),
  tokens_per_day: Schema.NullOr(Count),
  tokens_per_month: Schema.NullOr(Count),
  usd_per_day: Schema.NullOr(Schema.Number).annotate({ description: "Dollars per UTC day" }),
  usd_per_month: Schema.NullOr(Schema.Number).annotate({ description: "Dollars per UTC calendar month" })
}).annotate({ identifier: "Limits" })
export type Limits = typeof Limits.Type

export const CompressionLevel = Schema.Literals(COMPRESSION_LEVELS).annotate({
  identifier: "CompressionLevel",
  description: "off, shadow (measure only), safe (meaning kept exactly) or aggressive (retrievable cuts)"
})

/** Where an org's budget alerts go, and at which shares of a dollar budget. */
export const AlertSettings = Schema.Struct({
  webhook_url: Schema.String,
  thresholds: Schema.Array(Schema.Number).annotate({ description: "Shares of a dollar budget, ascending" })
}).annotate({ identifier: "AlertSettings" })
export type AlertSettings = typeof AlertSettings.Type

export const Org = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  created_at: Schema.String,
  log_content: Schema.Boolean.annotate({ description: "Whether prompt and completion text are stored in the log" }),
  compression: Schema.NullOr(CompressionLevel).annotate({ description: "null: the gateway's level" }),
  limits: Limits,
  alerts: Schema.NullOr(AlertSettings).annotate({ description: "null: no budget alerts" })
}).annotate({ identifier: "Org" })

/** One `budget.threshold` event and how its webhook delivery went. */
export const BudgetAlert = Schema.Struct({
  id: Schema.String,
  type: Schema.Literal("budget.threshold"),
  org_id: Schema.String,
  key_id: Schema.NullOr(Schema.String).annotate({ description: "null: the org's own budget" }),
  period: Schema.Literals(["day", "month"]),
  threshold: Schema.Number,
  spent_usd: Schema.Number,
  limit_usd: Schema.Number,
  at: Schema.String,
  delivery: Schema.Struct({
    status: Schema.Literals(["pending", "delivered", "failed"]),
    attempts: Schema.Number,
    delivered_at: NullableTime,
    last_error: Schema.NullOr(Schema.String)
  })
}).annotate({ identifier: "BudgetAlert" })
export type BudgetAlert = typeof BudgetAlert.Type
export type Org = typeof Org.Type

const keyFields = {
  id: Schema.String,
  org_id: Schema.String,
  name: Schema.String,
  description: Schema.NullOr(Schema.String).annotate({ description: "What the key is for; null: none given" }),
  prefix: Schema.String.annotate({ description: "The secret's first characters, to recognise it" }),
  created_at: Schema.String,
  expires_at: NullableTime,
  revoked_at: NullableTime,
  last_used_at: NullableTime,
  allowed_svc_tool_ids: Schema.NullOr(Schema.Array(Schema.String)).annotate({
    description: "null: every shared tool activated for the org"
  }),
  limits: Limits
}

export const ApiKey = Schema.Struct(keyFields).annotate({ identifier: "ApiKey" })
export type ApiKey = typeof ApiKey.Type

/** A new key: the only answer that holds the secret. */
export const CreatedApiKey = Schema.Struct({
  ...keyFields,
  key: Schema.String.annotate({ description: "The secret, shown this once" })
}).annotate({ identifier: "CreatedApiKey" })
export type CreatedApiKey = typeof CreatedApiKey.Type

/** An installed shared tool. */
export const SvcTool = Schema.Struct({
  id: Schema.String,
  description: Schema.String,
  parameters: Schema.Record(Schema.String, Schema.Unknown).annotate({ description: "The JSON Schema of its arguments" })
}).annotate({ identifier: "SvcTool" })
export type SvcTool = typeof SvcTool.Type

/** A shared tool's settings in one org. */
export const OrgToolSetting = Schema.Struct({
  id: Schema.String,
  activated: Schema.Boolean,
  hydrate_org: Schema.Boolean,
  hydrate_key_ids: Schema.Array(Schema.String)
}).annotate({ identifier: "OrgToolSetting" })
export type OrgToolSetting = typeof OrgToolSetting.Type

/** One request of the log. */
export const LoggedRequest = Schema.Struct({
  id: Schema.String,
  kind: Schema.Literals(REQUEST_KINDS).annotate({
    description: "completion (a chat answer, in any format) or count_tokens (POST /v1/messages/count_tokens)"
  }),
  created_at: Schema.String,
  org_id: Schema.NullOr(Schema.String),
  key_id: Schema.NullOr(Schema.String),
  requested_model: Schema.NullOr(Schema.String),
  model: Schema.NullOr(Schema.String),
  provider: Schema.NullOr(Schema.String),
  status: Count,
  error_code: Schema.NullOr(Schema.String),
  stream: Schema.Boolean,
  tags: Schema.Array(Schema.String),
  prompt_tokens: Count,
  completion_tokens: Count,
  cached_tokens: Count,
  reasoning_tokens: Count,
  total_tokens: Count,
  svc_tools: Schema.Array(Schema.String),
  attempts: Count,
  latency_ms: Count,
  ttft_ms: Schema.NullOr(Count),
  compression_level: Schema.NullOr(Schema.String),
  prompt_tokens_saved: Schema.NullOr(Count),
  prompt_tokens_saved_net: Schema.NullOr(Count),
  shadow_tokens_saved_safe: Schema.NullOr(Count),
  shadow_tokens_saved_aggressive: Schema.NullOr(Count),
  user_agent: Schema.NullOr(Schema.String),
  session_id: Schema.NullOr(Schema.String).annotate({
    description: "The client's session (Claude Code's X-Claude-Code-Session-Id)"
  }),
  cost_usd: Schema.NullOr(Schema.Number).annotate({
    description: "What the upstream calls cost, in dollars (stored as whole micro-dollars); null: unknown"
  }),
  cost_input_usd: Schema.NullOr(Schema.Number),
  cost_cached_input_usd: Schema.NullOr(Schema.Number).annotate({ description: "Cache reads" }),
  cost_cache_write_usd: Schema.NullOr(Schema.Number),
  cost_output_usd: Schema.NullOr(Schema.Number).annotate({ description: "Reasoning included" }),
  compression_saved_usd: Schema.NullOr(Schema.Number).annotate({
    description:
      "What compression saved in dollars at the model's price, net of prompt caching (negative: it cost more); null: no level or no price"
  }),
  prompt_text: Schema.optionalKey(Schema.String).annotate({ description: "Only when the org stores content" }),
  completion_text: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "LoggedRequest" })
export type LoggedRequest = typeof LoggedRequest.Type

export const RequestPage = Schema.Struct({
  object: Schema.Literal("list"),
  data: Schema.Array(LoggedRequest),
  next_cursor: Schema.NullOr(Schema.String).annotate({ description: "Pass as cursor for the next, older page" })
}).annotate({ identifier: "RequestPage" })
export type RequestPage = typeof RequestPage.Type

/** A client's session, summed over its requests. */
export const SessionSummary = Schema.Struct({
  session_id: Schema.String,
  client: Schema.NullOr(Schema.String).annotate({ description: "The User-Agent of its latest request" }),
  developer: Schema.NullOr(Schema.String).annotate({
    description: "From its `developer:<email>` tag (which `svc-gateway launch` sets); null without one"
  }),
  key_ids: Schema.Array(Schema.String),
  models: Schema.Array(Schema.String).annotate({ description: "As the client addressed them" }),
  first_request_at: Schema.String,
  last_request_at: Schema.String,
  requests: Count,
  errors: Count,
  prompt_tokens: Count,
  completion_tokens: Count,
  cached_tokens: Count,
  cache_hit_rate: Schema.Number.annotate({ description: "cached / prompt tokens, 0 to 1" }),
  cost_usd: Schema.Number,
  unpriced_requests: Count,
  prompt_tokens_saved: Count,
  compression_saved_usd: Schema.Number,
  svc_tool_runs: Count.annotate({ description: "Shared tools the gateway ran for it" })
}).annotate({ identifier: "SessionSummary" })
export type SessionSummary = typeof SessionSummary.Type

export const SessionDetail = Schema.Struct({
  ...SessionSummary.fields,
  timeline: Schema.Array(LoggedRequest).annotate({ description: "Its latest 200 requests, oldest first" })
}).annotate({ identifier: "SessionDetail" })
export type SessionDetail = typeof SessionDetail.Type

export const GroupBy = Schema.Literals(GROUP_BY).annotate({ identifier: "GroupBy" })
export type GroupBy = typeof GroupBy.Type

/** The requests of one group: a tag, model, key, session, UTC hour or day, status or compression level (null: none). */
export const AnalyticsGroup = Schema.Struct({
  group: Schema.NullOr(Schema.String),
  requests: Count,
  errors: Count,
  prompt_tokens: Count,
  completion_tokens: Count,
  cached_tokens: Count,
  reasoning_tokens: Count,
  total_tokens: Count,
  prompt_tokens_saved: Count,
  prompt_tokens_saved_net: Count,
  shadow_tokens_saved_safe: Count,
  shadow_tokens_saved_aggressive: Count,
  cost_usd: Schema.Number.annotate({
    description: "What the requests cost, in dollars (summed as whole micro-dollars); unknown costs add nothing"
  }),
  unpriced_requests: Count.annotate({ description: "Answered completions whose model had no price" }),
  compression_saved_usd: Schema.Number.annotate({
    description: "What compression saved in dollars, net of prompt caching (requests of unknown price add nothing)"
  }),
  p50_latency_ms: Count,
  p95_latency_ms: Count
}).annotate({ identifier: "AnalyticsGroup" })
export type AnalyticsGroup = typeof AnalyticsGroup.Type

export const Analytics = Schema.Struct({
  object: Schema.Literal("list"),
  group_by: GroupBy,
  data: Schema.Array(AnalyticsGroup),
  has_more: Schema.Boolean.annotate({ description: "More groups matched than the 1000 shown" })
}).annotate({ identifier: "Analytics" })
export type Analytics = typeof Analytics.Type

/** One UTC day's spend of one group. */
export const SpendRow = Schema.Struct({
  day: Schema.String.annotate({ description: "The UTC date, YYYY-MM-DD" }),
  group: Schema.NullOr(Schema.String),
  requests: Count,
  unpriced_requests: Count.annotate({ description: "Answered completions whose model had no price" }),
  prompt_tokens: Count,
  completion_tokens: Count,
  cost_usd: Schema.Number.annotate({ description: "Dollars, summed as whole micro-dollars" })
}).annotate({ identifier: "SpendRow" })

export const SpendReport = Schema.Struct({
  object: Schema.Literal("list"),
  group_by: GroupBy,
  data: Schema.Array(SpendRow),
  has_more: Schema.Boolean.annotate({ description: "More rows matched than the 10,000 shown: narrow the period" })
}).annotate({ identifier: "SpendReport" })
export type SpendReport = typeof SpendReport.Type

/** A target whose circuit breaker has left `closed` on this instance. */
export const Circuit = Schema.Struct({
  target: Schema.String,
  state: Schema.Literals(["closed", "half_open", "open"])
}).annotate({ identifier: "Circuit" })
export type Circuit = typeof Circuit.Type

/** Dollars per million tokens: `base`, or a tier's `price` once the request's input reaches its `start`. */
export const Rate = Schema.Struct({
  base: Schema.Number,
  tiers: Schema.Array(Schema.Struct({ start: Schema.Number, price: Schema.Number }))
}).annotate({ identifier: "Rate" })

/** A model's price per kind of token; a null rate is billed as input. */
export const TokenPrices = Schema.Struct({
  input: Rate,
  cached_input: Schema.NullOr(Rate).annotate({ description: "A cache read; null: billed as input" }),
  cache_write: Schema.NullOr(Rate).annotate({ description: "A 5-minute cache write; null: billed as input" }),
  cache_write_1h: Schema.NullOr(Rate).annotate({ description: "A 1-hour cache write; null: as cache_write" }),
  output: Rate
}).annotate({ identifier: "TokenPrices" })

/** The effective price of one routable model, and where it comes from. */
export const ModelPriceInfo = Schema.Struct({
  model: Schema.String.annotate({ description: "The address clients use (author/model)" }),
  provider: Schema.String,
  model_id: Schema.String.annotate({ description: "The model id the provider is asked for" }),
  source: Schema.NullOr(Schema.Literals(["routing", "catalogue", "free"])).annotate({
    description: "routing: the routing file's own price; catalogue: @pydantic/genai-prices; free: local; null: unknown"
  }),
  catalogue_model: Schema.NullOr(Schema.String).annotate({ description: "The catalogue's id for the model" }),
  price: Schema.NullOr(TokenPrices).annotate({ description: "null: no price is known; its requests cost null" })
}).annotate({ identifier: "ModelPriceInfo" })
export type ModelPriceInfo = typeof ModelPriceInfo.Type

/** A list in OpenAI's envelope. */
export const ListOf = <S extends Schema.Top>(item: S) =>
  Schema.Struct({ object: Schema.Literal("list"), data: Schema.Array(item) })

export const RoleGrant = Schema.Struct({
  role: Schema.Literals(ROLES),
  org_id: Schema.NullOr(Schema.String).annotate({ description: "null for owner, a role over every organization" })
}).annotate({ identifier: "RoleGrant" })

/** A person who administers the gateway. */
export const User = Schema.Struct({
  id: Schema.String,
  email: Schema.String,
  name: Schema.String,
  created_at: Schema.String,
  disabled_at: Schema.NullOr(Schema.String).annotate({ description: "Set: the user and their tokens are refused" }),
  roles: Schema.Array(RoleGrant).annotate({
    description: "An org admin sees only the roles on the organizations she administers"
  })
}).annotate({ identifier: "User" })
export type User = typeof User.Type

/** A personal access token, as listings show it: never the token. */
export const UserToken = Schema.Struct({
  id: Schema.String,
  user_id: Schema.String,
  name: Schema.String,
  prefix: Schema.String,
  created_at: Schema.String,
  expires_at: Schema.NullOr(Schema.String),
  revoked_at: Schema.NullOr(Schema.String)
}).annotate({ identifier: "UserToken" })

export const CreatedUserToken = Schema.Struct({
  ...UserToken.fields,
  token: Schema.String.annotate({ description: "Shown this once; send it as Authorization: Bearer" })
}).annotate({ identifier: "CreatedUserToken" })

/** Who the admin API takes the caller to be. */
export const Me = Schema.Struct({
  kind: Schema.Literals(["admin_token", "user"]),
  user: Schema.NullOr(User),
  token_id: Schema.NullOr(Schema.String).annotate({ description: "The personal access token used" })
}).annotate({ identifier: "Me" })

/** One change made through the admin API, the CLI or the console. */
export const AuditRecord = Schema.Struct({
  id: Schema.String,
  created_at: Schema.String,
  actor: Schema.Struct({
    kind: Schema.Literals(["user", "admin_token", "cli"]),
    user_id: Schema.NullOr(Schema.String),
    email: Schema.NullOr(Schema.String),
    token_id: Schema.NullOr(Schema.String).annotate({ description: "The personal access token used" })
  }),
  action: Schema.String.annotate({ description: "org.create, org.update, key.create, key.update, key.revoke, ..." }),
  target: Schema.Struct({ kind: Schema.String, id: Schema.NullOr(Schema.String) }),
  org_id: Schema.NullOr(Schema.String),
  before: Schema.Unknown.annotate({ description: "The target before the change (null for a creation); no secrets" }),
  after: Schema.Unknown.annotate({ description: "The target after the change; no secrets" }),
  request_id: Schema.NullOr(Schema.String),
  address: Schema.NullOr(Schema.String)
}).annotate({ identifier: "AuditRecord" })

/** A remote MCP server an organization registered: never its headers' values. */
export const McpServer = Schema.Struct({
  id: Schema.String,
  org_id: Schema.String,
  name: Schema.String,
  url: Schema.String,
  header_names: Schema.Array(Schema.String),
  oauth: Schema.Boolean.annotate({ description: "Authorized with OAuth by an org admin, rather than by headers" }),
  authorized_at: Schema.NullOr(Schema.String).annotate({
    description: "When an org admin authorized it (OAuth); null: not authorized"
  }),
  tools: Schema.Array(Schema.Struct({ id: Schema.String, name: Schema.String, description: Schema.String })).annotate({
    description: "Its tools as shared tools (activate them like any shared tool), as last listed"
  }),
  rejected_tools: Schema.Array(Schema.Struct({ name: Schema.String, reason: Schema.String })).annotate({
    description: "Tools it lists that no model may see, and why"
  }),
  last_error: Schema.NullOr(Schema.String).annotate({ description: "Why it could not be asked last time" }),
  refreshed_at: Schema.NullOr(Schema.String),
  created_at: Schema.String
}).annotate({ identifier: "McpServer" })
export type McpServer = typeof McpServer.Type

/** `POST .../mcp-servers/{server_id}/authorize`: where to send the org admin. */
export const McpAuthorization = Schema.Struct({
  authorization_url: Schema.NullOr(Schema.String).annotate({
    description: "The authorization server's page; null when the tokens kept still work"
  })
}).annotate({ identifier: "McpAuthorization" })
