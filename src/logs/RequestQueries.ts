/**
 * Reading the request log, one organization at a time: filtered pages newest first, one request's
 * detail, and analytics in total or per tag, model, key, UTC hour or day, or status.
 *
 * Pages are keyset-paginated on `(created_at, id)`, which walks the `request_log_org_time` index
 * (`org_id, created_at DESC, id DESC`) whatever the depth; on PostgreSQL tag filters use `&&` / `@>` so
 * the GIN index on `tags` can answer rare tags (the embedded SQLite store searches each row's JSON list).
 * The statement builders are exported so the bench can EXPLAIN exactly what the service runs.
 */
import { Context, Effect, Layer } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { AdminError } from "../kernel/AdminError.ts"
import type { GroupBy } from "../kernel/GroupBy.ts"
import { fromJson, toBool, toIso } from "../store/Rows.ts"
import { encodeCursor, type PageRequest, type RequestFilter } from "./RequestFilter.ts"
import { GROUP_KEY_PG, GROUP_KEY_SQLITE, UNPRICED, usd, whereClause } from "./RequestLogSql.ts"
import type { RequestKind } from "./RequestRecord.ts"
import { type SpendReport, spendReport } from "./SpendReport.ts"

/** One request as the admin API shows it: the stored row, with an ISO time and the total tokens. */
export type RequestLogEntry =
  & Omit<
    LogRow,
    | "created_at"
    | "stream"
    | "tags"
    | "svc_tools"
    | "cursor_time"
    | "prompt_text"
    | "completion_text"
    | "kind"
    | "cost_input"
    | "cost_cached_input"
    | "cost_cache_write"
    | "cost_output"
  >
  & {
    readonly kind: RequestKind
    /** Dollars, from whole micro-dollars (exact to six decimals); null when unknown. */
    readonly cost_usd: number | null
    readonly cost_input_usd: number | null
    readonly cost_cached_input_usd: number | null
    readonly cost_cache_write_usd: number | null
    readonly cost_output_usd: number | null
    readonly created_at: string
    readonly stream: boolean
    readonly tags: ReadonlyArray<string>
    readonly svc_tools: ReadonlyArray<string>
    /** prompt + completion (cached tokens are part of the prompt, reasoning tokens of the completion). */
    readonly total_tokens: number
    /** Present only when stored (the org opted in with `log_content`). */
    readonly prompt_text?: string
    readonly completion_text?: string
  }

export interface RequestPage {
  readonly object: "list"
  readonly data: ReadonlyArray<RequestLogEntry>
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  readonly next_cursor: string | null
}

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

/**
 * A `request_log` row as the SQL client returns it: PostgreSQL's types, or SQLite's (times as ISO text,
 * booleans as 0/1, lists as JSON text).
 */
export interface LogRow {
  readonly id: string
  readonly created_at: Date | string
  readonly org_id: string | null
  readonly key_id: string | null
  readonly requested_model: string | null
  readonly model: string | null
  readonly provider: string | null
  readonly status: number
  readonly error_code: string | null
  readonly stream: boolean | number
  readonly tags: ReadonlyArray<string> | string
  readonly prompt_tokens: number
  readonly completion_tokens: number
  readonly cached_tokens: number
  readonly reasoning_tokens: number
  readonly svc_tools: ReadonlyArray<string> | string
  readonly attempts: number
  readonly latency_ms: number
  readonly ttft_ms: number | null
  readonly compression_level: string | null
  readonly prompt_tokens_saved: number | null
  readonly prompt_tokens_saved_net: number | null
  readonly shadow_tokens_saved_safe: number | null
  readonly shadow_tokens_saved_aggressive: number | null
  readonly user_agent: string | null
  readonly session_id: string | null
  readonly prompt_text: string | null
  readonly completion_text: string | null
  /** NULL: a completion. */
  readonly kind: RequestKind | null
  /** Micro-dollars per part; NULL when nothing was billed or a price was unknown. */
  readonly cost_input: number | null
  readonly cost_cached_input: number | null
  readonly cost_cache_write: number | null
  readonly cost_output: number | null
  /** `created_at` to the microsecond, for the cursor (a JS Date keeps only milliseconds). */
  readonly cursor_time: string
}

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
  readonly p50: number
  readonly p95: number
}

const STORED = `id, created_at, org_id, key_id, requested_model, model, provider, status, error_code, stream, tags,
  prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens, svc_tools, attempts, latency_ms, ttft_ms,
  compression_level, prompt_tokens_saved, prompt_tokens_saved_net, shadow_tokens_saved_safe,
  shadow_tokens_saved_aggressive, user_agent, session_id, prompt_text, completion_text, kind, cost_input,
  cost_cached_input, cost_cache_write, cost_output`

/** The stored columns and the cursor's time: SQLite's text already is the exact stored time. */
const columns = (sql: SqlClient.SqlClient) =>
  sql.literal(sql.onDialectOrElse({
    sqlite: () => `${STORED}, created_at AS cursor_time`,
    orElse: () => `${STORED}, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_time`
  }))

/** The row's cost in dollars, each part and their sum; all null when it has none. */
const costOfRow = (row: LogRow) => {
  const parts = [row.cost_input, row.cost_cached_input, row.cost_cache_write, row.cost_output]
  if (parts.some((part) => part === null)) {
    return {
      cost_usd: null,
      cost_input_usd: null,
      cost_cached_input_usd: null,
      cost_cache_write_usd: null,
      cost_output_usd: null
    }
  }
  const [input, cached, written, output] = parts as Array<number>
  return {
    cost_usd: usd(input! + cached! + written! + output!),
    cost_input_usd: usd(input!),
    cost_cached_input_usd: usd(cached!),
    cost_cache_write_usd: usd(written!),
    cost_output_usd: usd(output!)
  }
}

const toEntry = (row: LogRow): RequestLogEntry => ({
  id: row.id,
  // stored only when not a completion (see RequestLogStore's toRow)
  kind: row.kind ?? "completion",
  created_at: toIso(row.created_at),
  org_id: row.org_id,
  key_id: row.key_id,
  requested_model: row.requested_model,
  model: row.model,
  provider: row.provider,
  status: row.status,
  error_code: row.error_code,
  stream: toBool(row.stream),
  tags: fromJson(row.tags),
  prompt_tokens: row.prompt_tokens,
  completion_tokens: row.completion_tokens,
  cached_tokens: row.cached_tokens,
  reasoning_tokens: row.reasoning_tokens,
  total_tokens: row.prompt_tokens + row.completion_tokens,
  svc_tools: fromJson(row.svc_tools),
  attempts: row.attempts,
  latency_ms: row.latency_ms,
  ttft_ms: row.ttft_ms,
  compression_level: row.compression_level,
  // stored only when not 0 (see RequestLogStore's toRow)
  prompt_tokens_saved: row.compression_level === null ? row.prompt_tokens_saved : row.prompt_tokens_saved ?? 0,
  prompt_tokens_saved_net: row.compression_level === null
    ? row.prompt_tokens_saved_net
    : row.prompt_tokens_saved_net ?? 0,
  shadow_tokens_saved_safe: row.shadow_tokens_saved_safe,
  shadow_tokens_saved_aggressive: row.shadow_tokens_saved_aggressive,
  user_agent: row.user_agent,
  session_id: row.session_id,
  ...costOfRow(row),
  ...(row.prompt_text === null ? {} : { prompt_text: row.prompt_text }),
  ...(row.completion_text === null ? {} : { completion_text: row.completion_text })
})

/** One page, newest first; one row more than the limit tells whether another page follows. */
export const listStatement = (
  sql: SqlClient.SqlClient,
  orgId: string,
  { filter, page }: { readonly filter: RequestFilter; readonly page: PageRequest }
) => {
  const cursor = page.cursor
  const after = cursor === undefined
    ? sql``
    // a row comparison, so the index range starts right after the cursor's row; the cursor's time has
    // six fractional digits, which is SQLite's stored text as it is
    : sql.onDialectOrElse({
      sqlite: () => sql`AND (created_at, id) < (${cursor.createdAt}, ${cursor.id})`,
      orElse: () => sql`AND (created_at, id) < (${cursor.createdAt}::timestamptz, ${cursor.id})`
    })
  return sql<LogRow>`SELECT ${columns(sql)} FROM request_log
    WHERE ${whereClause(sql, orgId, filter)} ${after}
    ORDER BY created_at DESC, id DESC LIMIT ${page.limit + 1}`
}

/** The group key per `groupBy`, on PostgreSQL; constants only, never client text. */

/** Per group: counts, token sums and latency percentiles; hours, days and statuses ascending, others busiest first. */

export const analyticsStatement = (
  sql: SqlClient.SqlClient,
  orgId: string,
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
          count(*) AS requests,
          count(*) FILTER (WHERE status >= 400) AS errors,
          coalesce(sum(prompt_tokens), 0) AS prompt_tokens,
          coalesce(sum(completion_tokens), 0) AS completion_tokens,
          coalesce(sum(cached_tokens), 0) AS cached_tokens,
          coalesce(sum(reasoning_tokens), 0) AS reasoning_tokens,
          coalesce(sum(prompt_tokens + completion_tokens), 0) AS total_tokens,
          coalesce(sum(prompt_tokens_saved), 0) AS prompt_tokens_saved,
          coalesce(sum(prompt_tokens_saved_net), 0) AS prompt_tokens_saved_net,
          coalesce(sum(shadow_tokens_saved_safe), 0) AS shadow_tokens_saved_safe,
          coalesce(sum(shadow_tokens_saved_aggressive), 0) AS shadow_tokens_saved_aggressive,
          coalesce(sum(cost_input + cost_cached_input + cost_cache_write + cost_output), 0) AS cost_micro,
          count(*) FILTER (WHERE ${sql.literal(UNPRICED)}) AS unpriced,
          percentile_cont(latency_ms, 0.5) AS p50,
          percentile_cont(latency_ms, 0.95) AS p95
        FROM ${groupBy === "tag" ? sql`request_log LEFT JOIN json_each(request_log.tags) AS t` : sql`request_log`}
        WHERE ${where}
        GROUP BY 1
        ORDER BY ${sql.literal(order)}
        LIMIT ${MAX_GROUPS + 1}`,
    orElse: () =>
      sql<GroupRow>`SELECT ${sql.literal(GROUP_KEY_PG[groupBy])} AS grp,
          count(*)::int8 AS requests,
          count(*) FILTER (WHERE status >= 400)::int8 AS errors,
          coalesce(sum(prompt_tokens), 0)::int8 AS prompt_tokens,
          coalesce(sum(completion_tokens), 0)::int8 AS completion_tokens,
          coalesce(sum(cached_tokens), 0)::int8 AS cached_tokens,
          coalesce(sum(reasoning_tokens), 0)::int8 AS reasoning_tokens,
          coalesce(sum(prompt_tokens::int8 + completion_tokens), 0)::int8 AS total_tokens,
          coalesce(sum(prompt_tokens_saved), 0)::int8 AS prompt_tokens_saved,
          coalesce(sum(prompt_tokens_saved_net), 0)::int8 AS prompt_tokens_saved_net,
          coalesce(sum(shadow_tokens_saved_safe), 0)::int8 AS shadow_tokens_saved_safe,
          coalesce(sum(shadow_tokens_saved_aggressive), 0)::int8 AS shadow_tokens_saved_aggressive,
          coalesce(sum(cost_input::int8 + cost_cached_input + cost_cache_write + cost_output), 0)::int8 AS cost_micro,
          count(*) FILTER (WHERE ${sql.literal(UNPRICED)})::int8 AS unpriced,
          percentile_cont(0.5) WITHIN GROUP (ORDER BY latency_ms) AS p50,
          percentile_cont(0.95) WITHIN GROUP (ORDER BY latency_ms) AS p95
        FROM ${groupBy === "tag" ? sql`request_log LEFT JOIN LATERAL unnest(tags) AS t(tag) ON true` : sql`request_log`}
        WHERE ${where}
        GROUP BY 1
        ORDER BY ${sql.literal(order)}
        LIMIT ${MAX_GROUPS + 1}`
  })
}

const toGroup = (row: GroupRow): AnalyticsGroup => ({
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
  p50_latency_ms: row.p50,
  p95_latency_ms: row.p95
})

export class RequestQueries extends Context.Service<RequestQueries, {
  /** A page of the org's requests matching `filter`, newest first. */
  readonly list: (
    orgId: string,
    filter: RequestFilter,
    page: PageRequest
  ) => Effect.Effect<RequestPage, SqlError.SqlError>
  /** One request of the org; NotFound when it does not exist or is another org's. */
  readonly get: (orgId: string, requestId: string) => Effect.Effect<RequestLogEntry, SqlError.SqlError | AdminError>
  /** The org's requests matching `filter`, aggregated per group. */
  readonly analytics: (
    orgId: string,
    groupBy: GroupBy,
    filter: RequestFilter
  ) => Effect.Effect<Analytics, SqlError.SqlError>
  /** The org's spend per UTC day and group, for export. */
  readonly spend: (
    orgId: string,
    groupBy: GroupBy,
    filter: RequestFilter
  ) => Effect.Effect<SpendReport, SqlError.SqlError>
}>()("svc-gateway/RequestQueries") {
  static readonly layer = Layer.effect(
    RequestQueries,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient

      const list = Effect.fn("RequestQueries.list")(function*(orgId: string, filter: RequestFilter, page: PageRequest) {
        const rows = yield* listStatement(sql, orgId, { filter, page })
        const shown = rows.slice(0, page.limit)
        const last = shown[shown.length - 1]
        const next = rows.length > page.limit && last !== undefined
          ? encodeCursor({ createdAt: last.cursor_time, id: last.id })
          : null
        const result: RequestPage = { object: "list", data: shown.map(toEntry), next_cursor: next }
        return result
      })

      const get = Effect.fn("RequestQueries.get")(function*(orgId: string, requestId: string) {
        const rows = yield* sql<LogRow>`SELECT ${columns(sql)} FROM request_log
        WHERE id = ${requestId} AND org_id = ${orgId}`
        const row = rows[0]
        // another org's request is answered exactly like a missing one: ids do not leak across orgs
        if (row === undefined) return yield* AdminError.notFound("request", requestId)
        return toEntry(row)
      })

      const analytics = Effect.fn("RequestQueries.analytics")(function*(
        orgId: string,
        groupBy: GroupBy,
        filter: RequestFilter
      ) {
        const rows = yield* analyticsStatement(sql, orgId, { groupBy, filter })
        const result: Analytics = {
          object: "list",
          group_by: groupBy,
          data: rows.slice(0, MAX_GROUPS).map(toGroup),
          has_more: rows.length > MAX_GROUPS
        }
        return result
      })

      const spend = (orgId: string, groupBy: GroupBy, filter: RequestFilter) =>
        spendReport(orgId, groupBy, filter).pipe(Effect.provideService(SqlClient.SqlClient, sql))

      return RequestQueries.of({ list, get, analytics, spend })
    })
  )
}
