/**
 * What the admin API takes: the body of each endpoint that has one, and the request log's query
 * parameters. Pure schemas (nothing here reads a service), so the console can take their types; the
 * checks that need the store or the catalogue are `AdminInput.ts`'s.
 */
import { Schema } from "effect"
import { isThreshold, MAX_THRESHOLDS, webhookUrlProblem } from "../kernel/AlertSettings.ts"
import { COMPRESSION_LEVELS } from "../kernel/CompressionLevel.ts"
import { isDollarAmount } from "../kernel/Limits.ts"
import { ROLES } from "../kernel/Roles.ts"

/** A display name: trimmed, 1 to 200 characters. */
export const Name = Schema.String.check(
  Schema.isTrimmed({ message: "Expected no leading or trailing spaces" }),
  Schema.isMinLength(1, { message: "Expected a non-empty name" }),
  Schema.isMaxLength(200, { message: "Expected at most 200 characters" })
)

/** `POST /admin/v1/orgs`'s body. */
export const CreateOrg = Schema.Struct({ name: Name }).annotate({ identifier: "CreateOrg" })

const ToolIds = Schema.NullOr(Schema.Array(Schema.String)).annotate({
  description: "Installed shared tools the key may use; null: every tool activated for the org"
})

const Description = Schema.NullOr(
  Schema.String.check(Schema.isMaxLength(1000, { message: "Expected at most 1000 characters" }))
).annotate({ description: "What the key is for, in your words; null: none" })

const ExpiresAt = Schema.NullOr(Schema.String).annotate({
  description: "An ISO 8601 date-time in the future; null: never expires"
})

const LimitValue = Schema.NullOr(
  Schema.Int.check(Schema.isGreaterThan(0, { message: "Expected a whole number above 0, or null for no limit" }))
)

const DollarValue = Schema.NullOr(
  Schema.Number.check(
    Schema.makeFilter((usd) => isDollarAmount(usd), {
      message: "Expected dollars above 0, to at most 6 decimals (0.000001), or null for no limit"
    })
  )
)

/**
 * `limits` of a key or an org: requests per minute, tokens per minute, tokens per day and per month,
 * dollars per day and per month (UTC calendar). The kinds named change (`null` removes one);
 * `limits: null` removes them all.
 */
export const LimitsInput = Schema.NullOr(Schema.Struct({
  rpm: Schema.optionalKey(LimitValue),
  tpm: Schema.optionalKey(LimitValue),
  tokens_per_day: Schema.optionalKey(LimitValue),
  tokens_per_month: Schema.optionalKey(LimitValue),
  usd_per_day: Schema.optionalKey(DollarValue),
  usd_per_month: Schema.optionalKey(DollarValue)
}))

/** What a key has besides its name, each optional both when it is made and when it is changed. */
const keySettings = {
  description: Schema.optionalKey(Description),
  expires_at: Schema.optionalKey(ExpiresAt),
  allowed_svc_tool_ids: Schema.optionalKey(ToolIds),
  limits: Schema.optionalKey(LimitsInput)
}

/** `POST /admin/v1/orgs/{org_id}/keys`'s body. */
export const CreateKey = Schema.Struct({ name: Name, ...keySettings }).annotate({ identifier: "CreateKey" })
export type CreateKey = typeof CreateKey.Type

/** `PATCH /admin/v1/keys/{key_id}`'s body: only the fields present change. */
export const UpdateKey = Schema.Struct({ name: Schema.optionalKey(Name), ...keySettings }).annotate({
  identifier: "UpdateKey"
})
export type UpdateKey = typeof UpdateKey.Type

/** `PUT /admin/v1/orgs/{org_id}/svc-tools/{tool_id}`'s body; hydration left out keeps its value. */
export const SetOrgTool = Schema.Struct({
  activated: Schema.Boolean,
  hydrate_org: Schema.optionalKey(Schema.Boolean),
  hydrate_key_ids: Schema.optionalKey(Schema.Array(Schema.String))
}).annotate({ identifier: "SetOrgTool" })
export type SetOrgTool = typeof SetOrgTool.Type

/** One value; given twice, the schema refuses it (400 naming the parameter). */
const Param = (description: string) => Schema.optional(Schema.String).annotate({ description })

/** The request log's filters, as query parameters; the handlers check them (`RequestQueryParams.ts`). */
export const RequestFilterQuery = {
  tag: Schema.optional(Schema.Array(Schema.String)).annotate({ description: "Repeatable" }),
  tag_mode: Param("any (default: at least one of the tags) or all"),
  model: Param("The requested or the reported model"),
  key_id: Param("One key's requests"),
  session_id: Param("One client session's requests"),
  status: Param("404, a class 4xx/5xx, or error (status >= 400)"),
  from: Param("Inclusive: an ISO 8601 date (UTC midnight) or date-time with a zone"),
  to: Param("Exclusive: an ISO 8601 date (UTC midnight) or date-time with a zone")
}

export const RequestListQuery = {
  ...RequestFilterQuery,
  limit: Param("1..200, default 50"),
  cursor: Param("The previous page's next_cursor, as is")
}

export const SessionsQuery = {
  ...RequestFilterQuery,
  limit: Param("1..200, default 50")
}

export const AnalyticsQuery = {
  group_by: Schema.String.annotate({
    description: "none, tag, model, provider, key, session, hour, day, status or compression"
  }),
  ...RequestFilterQuery
}

/** An org's budget alerts: a webhook and the shares of a dollar budget that post to it. */
export const AlertsInput = Schema.NullOr(Schema.Struct({
  webhook_url: Schema.String.check(
    Schema.makeFilter((url) => webhookUrlProblem(url) ?? true)
  ).annotate({ description: "Where each event is posted (http or https)" }),
  thresholds: Schema.optionalKey(
    Schema.Array(
      Schema.Number.check(Schema.makeFilter((value) => isThreshold(value), {
        message: "Expected a share of the budget above 0 and at most 1"
      }))
    ).check(
      Schema.isMinLength(1, { message: "Expected at least one threshold" }),
      Schema.isMaxLength(MAX_THRESHOLDS, { message: `Expected at most ${MAX_THRESHOLDS} thresholds` })
    )
  ).annotate({ description: "Shares of a dollar budget, each above 0 and at most 1; default [0.5, 0.8, 1]" })
})).annotate({ identifier: "AlertsInput", description: "null: no alerts" })

/** `PATCH /admin/v1/orgs/{org_id}`'s body: each field optional, at least one present. */
export const OrgUpdate = Schema.Struct({
  alerts: Schema.optionalKey(AlertsInput),
  limits: Schema.optionalKey(LimitsInput),
  log_content: Schema.optionalKey(Schema.Boolean),
  // null: back to the gateway's level (GATEWAY_COMPRESSION)
  compression: Schema.optionalKey(Schema.NullOr(Schema.Literals(COMPRESSION_LEVELS)))
}).annotate({ identifier: "OrgUpdate" })

/** A role as granted in `PUT /admin/v1/users/{user_id}/roles`: `owner` without an org, the others with one. */
export const RoleGrantInput = Schema.Struct({
  role: Schema.Literals(ROLES),
  org_id: Schema.optionalKey(Schema.NullOr(Schema.String))
}).annotate({ identifier: "RoleGrantInput" })

/** `POST /admin/v1/users`'s body. */
export const CreateUser = Schema.Struct({
  email: Schema.String.check(
    Schema.isPattern(/^[^\s@]{1,64}@[^\s@]{1,253}$/, { message: "Expected an email address such as ana@example.com" })
  ),
  name: Name
}).annotate({ identifier: "CreateUser" })

/** `PATCH /admin/v1/users/{user_id}`'s body: only the fields present change. */
export const UpdateUser = Schema.Struct({
  name: Schema.optionalKey(Name),
  disabled: Schema.optionalKey(Schema.Boolean)
}).annotate({ identifier: "UpdateUser" })

/** `PUT /admin/v1/users/{user_id}/roles`'s body: the user's roles, replacing those the caller may give. */
export const SetRoles = Schema.Struct({ roles: Schema.Array(RoleGrantInput) }).annotate({ identifier: "SetRoles" })

/** `POST /admin/v1/users/{user_id}/tokens`'s body. */
export const CreateUserToken = Schema.Struct({ name: Name, expires_at: Schema.optionalKey(ExpiresAt) }).annotate({
  identifier: "CreateUserToken"
})

/** `POST /admin/v1/orgs/{org_id}/mcp-servers`'s body. */
export const CreateMcpServer = Schema.Struct({
  name: Schema.String.annotate({
    description: "1 to 24 lower-case letters and digits; tools are svc_mcp_<name>_<tool>"
  }),
  url: Schema.String.annotate({ description: "The server's streamable HTTP endpoint" }),
  headers: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)).annotate({
    description: "Sent with every request to the server (a token); stored sealed, never shown again"
  }),
  oauth: Schema.optionalKey(Schema.Boolean).annotate({
    description: "Authorized with OAuth (POST .../authorize) instead of headers"
  })
}).annotate({ identifier: "CreateMcpServer" })
