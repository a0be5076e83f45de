/**
 * The request log's analytics: one org's matching requests counted per group (a tag, model, key, session,
 * UTC hour or day, or status, or none), with errors, token sums, the cost and its unpriced requests, and
 * latency percentiles. The statement is exported so the bench can EXPLAIN exactly what the service runs.
 */
import type { SqlClient } from "effect/sql"
import type { GroupBy } from "../kernel/GroupBy.ts"
import type { RequestFilter } from "./RequestFilter.ts"
import { GROUP_KEY_PG, GROUP_KEY_SQLITE, GROUP_SUMS, usd, whereClause } from "./RequestLogSql.ts"

export interface AnalyticsGroup {
  /** The tag, model, key id, `YYYY-MM-DD` (UTC) or status; null for untagged requests, no key, no model. */
  readonly group: string | null
  readonly requests: number
  /** Requests answered with status >= 400. */
  readonly errors: number
  readonly prompt_tokens: number
  readonly completion_tokens: number
  readonly cached_tokens: number
  readonly reasoning_tokens: number
  readonly total_tokens: number
  /** o200k prompt tokens compression saved on the wire, raw and priced as a bill prices it. */
  readonly prompt_tokens_saved: number
  readonly prompt_tokens_saved_net: number
  /** What `safe` and `aggressive` would have saved on the requests that ran at `shadow`. */
  readonly shadow_tokens_saved_safe: number
  readonly shadow_tokens_saved_aggressive: number
  /** What the group's requests cost, in dollars (summed as whole micro-dollars); requests of unknown cost add nothing. */
  readonly cost_usd: number
  /** Answered completions whose model had no price: their cost is unknown, not 0. */
  readonly unpriced_requests: number
  /** What compression saved in dollars, net of prompt caching (summed as whole micro-dollars). */
  readonly compression_saved_usd: number
  readonly p50_latency_ms: number
  readonly p95_latency_ms: number
}

export interface Analytics {
  readonly object: "list"
  readonly group_by: GroupBy
  readonly data: ReadonlyArray<AnalyticsGroup>
  /** More than MAX_GROUPS groups matched: narrow the filter to see the rest. */
  readonly has_more: boolean
}

/** Caps the groups one analytics call returns (tags and keys are open-ended). */
export const MAX_GROUPS = 1000

/** Sums as PostgreSQL's int8 (`bigint`) or SQLite's integers (`number`). */
interface GroupRow {
  readonly grp: string | null
  readonly requests: bigint | number
  readonly errors: bigint | number
  readonly prompt_tokens: bigint | number
  readonly completion_tokens: bigint | number
  readonly cached_tokens: bigint | number
  readonly reasoning_tokens: bigint | number
  readonly total_tokens: bigint | number
  readonly prompt_tokens_saved: bigint | number
  readonly prompt_tokens_saved_net: bigint | number
  readonly shadow_tokens_saved_safe: bigint | number
  readonly shadow_tokens_saved_aggressive: bigint | number
  readonly cost_micro: bigint | number
  readonly unpriced: bigint | number
  readonly saved_micro: bigint | number
  readonly p50: number
  readonly p95: number
}

/** Per group: counts, token sums and latency percentiles; hours, days and statuses ascending, others busiest first. */

export const analyticsStatement = (
  sql: SqlClient.SqlClient,
  orgId: string | null,
  { filter, groupBy }: { readonly groupBy: GroupBy; readonly filter: RequestFilter }
) => {
  const order = groupBy === "hour" || groupBy === "day" || groupBy === "status"
    ? "grp ASC"
    : "requests DESC, grp ASC NULLS LAST"
  const where = whereClause(sql, orgId, filter)
  // one row per tag, so a request with two tags counts in both groups; untagged requests form the null group
  return sql.onDialectOrElse({
    sqlite: () =>
      sql<GroupRow>`SELECT ${sql.literal(GROUP_KEY_SQLITE[groupBy])} AS grp,
          ${sql.literal(GROUP_SUMS.sqlite)},
          coalesce(sum(reasoning_tokens), 0) AS reasoning_tokens,
          coalesce(sum(prompt_tokens + completion_tokens), 0) AS total_tokens,
          coalesce(sum(prompt_tokens_saved_net), 0) AS prompt_tokens_saved_net,
          coalesce(sum(shadow_tokens_saved_safe), 0) AS shadow_tokens_saved_safe,
          coalesce(sum(shadow_tokens_saved_aggressive), 0) AS shadow_tokens_saved_aggressive,
          percentile_cont(latency_ms, 0.5) AS p50,
          percentile_cont(latency_ms, 0.95) AS p95
        FROM ${groupBy === "tag" ? sql`request_log LEFT JOIN json_each(request_log.tags) AS t` : sql`request_log`}
        WHERE ${where}
        GROUP BY 1
        ORDER BY ${sql.literal(order)}
        LIMIT ${MAX_GROUPS + 1}`,
    orElse: () =>
      sql<GroupRow>`SELECT ${sql.literal(GROUP_KEY_PG[groupBy])} AS grp,
          ${sql.literal(GROUP_SUMS.pg)},
          coalesce(sum(reasoning_tokens), 0)::int8 AS reasoning_tokens,
          coalesce(sum(prompt_tokens::int8 + completion_tokens), 0)::int8 AS total_tokens,
          coalesce(sum(prompt_tokens_saved_net), 0)::int8 AS prompt_tokens_saved_net,
          coalesce(sum(shadow_tokens_saved_safe), 0)::int8 AS shadow_tokens_saved_safe,
          coalesce(sum(shadow_tokens_saved_aggressive), 0)::int8 AS shadow_tokens_saved_aggressive,
          percentile_cont(0.5) WITHIN GROUP (ORDER BY latency_ms) AS p50,
          percentile_cont(0.95) WITHIN GROUP (ORDER BY latency_ms) AS p95
        FROM ${groupBy === "tag" ? sql`request_log LEFT JOIN LATERAL unnest(tags) AS t(tag) ON true` : sql`request_log`}
        WHERE ${where}
        GROUP BY 1
        ORDER BY ${sql.literal(order)}
        LIMIT ${MAX_GROUPS + 1}`
  })
}

export const toGroup = (row: GroupRow): AnalyticsGroup => ({
  group: row.grp,
  requests: Number(row.requests),
  errors: Number(row.errors),
  prompt_tokens: Number(row.prompt_tokens),
  completion_tokens: Number(row.completion_tokens),
  cached_tokens: Number(row.cached_tokens),
  reasoning_tokens: Number(row.reasoning_tokens),
  total_tokens: Number(row.total_tokens),
  prompt_tokens_saved: Number(row.prompt_tokens_saved),
  prompt_tokens_saved_net: Number(row.prompt_tokens_saved_net),
  shadow_tokens_saved_safe: Number(row.shadow_tokens_saved_safe),
  shadow_tokens_saved_aggressive: Number(row.shadow_tokens_saved_aggressive),
  cost_usd: usd(Number(row.cost_micro)),
  unpriced_requests: Number(row.unpriced),
  compression_saved_usd: usd(Number(row.saved_micro)),
  p50_latency_ms: row.p50,
  p95_latency_ms: row.p95
})
