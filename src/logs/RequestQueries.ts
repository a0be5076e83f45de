/**
 * Reading the request log, one organization at a time: filtered pages newest first, one request's
 * detail, and analytics in total or per tag, model, key, UTC hour or day, or status.
 *
 * Pages are keyset-paginated on `(created_at, id)`, which walks the `request_log_org_time` index
 * (`org_id, created_at, id` backwards on SQLite; `org_id, created_at` on PostgreSQL since migration 0022,
 * which sorts the rows of one instant by id) whatever the depth; on PostgreSQL tag filters use `&&` / `@>` so
 * the GIN index on `tags` can answer rare tags (the embedded SQLite store searches each row's JSON list).
 * The statement builders are exported so the bench can EXPLAIN exactly what the service runs.
 */
import { Context, Effect, Layer } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { AdminError } from "../kernel/AdminError.ts"
import type { GroupBy } from "../kernel/GroupBy.ts"
import { fromJson, toBool, toIso } from "../store/Rows.ts"
import { type Analytics, analyticsStatement, MAX_GROUPS, toGroup } from "./Analytics.ts"
import { encodeCursor, MAX_LIMIT, type PageRequest, type RequestFilter } from "./RequestFilter.ts"
import { requestIdCondition, usd, whereClause } from "./RequestLogSql.ts"
import type { RequestKind } from "./RequestRecord.ts"
import { sessionsStatement, type SessionSummary, toSession } from "./Sessions.ts"
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
    | "compression_saved_micro"
  >
  & {
    readonly kind: RequestKind
    /** Dollars, from whole micro-dollars (exact to six decimals); null when unknown. */
    readonly cost_usd: number | null
    readonly cost_input_usd: number | null
    readonly cost_cached_input_usd: number | null
    readonly cost_cache_write_usd: number | null
    readonly cost_output_usd: number | null
    /** What compression saved, in dollars net of prompt caching; null without a level or a price. */
    readonly compression_saved_usd: number | null
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
  /** Micro-dollars; NULL when nothing was saved, without a level, or with an unknown price. */
  readonly compression_saved_micro: number | null
  /** `created_at` to the microsecond, for the cursor (a JS Date keeps only milliseconds). */
  readonly cursor_time: string
}

const STORED = `id, created_at, org_id, key_id, requested_model, model, provider, status, error_code, stream, tags,
  prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens, svc_tools, attempts, latency_ms, ttft_ms,
  compression_level, prompt_tokens_saved, prompt_tokens_saved_net, shadow_tokens_saved_safe,
  shadow_tokens_saved_aggressive, user_agent, session_id, prompt_text, completion_text, kind, cost_input,
  cost_cached_input, cost_cache_write, cost_output, compression_saved_micro`

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
  // stored only when not 0; unknown without a level or a price
  compression_saved_usd: row.compression_level === null || row.cost_input === null
    ? null
    : usd(row.compression_saved_micro ?? 0),
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

export class RequestQueries extends Context.Service<RequestQueries, {
  /** A page of the org's requests matching `filter`, newest first. */
  readonly list: (
    orgId: string,
    filter: RequestFilter,
    page: PageRequest
  ) => Effect.Effect<RequestPage, SqlError.SqlError>
  /** One request of the org; NotFound when it does not exist or is another org's. */
  readonly get: (orgId: string, requestId: string) => Effect.Effect<RequestLogEntry, SqlError.SqlError | AdminError>
  /** The org's requests matching `filter` (null: every org's), aggregated per group. */
  readonly analytics: (
    orgId: string | null,
    groupBy: GroupBy,
    filter: RequestFilter
  ) => Effect.Effect<Analytics, SqlError.SqlError>
  /** The org's sessions matching `filter`, newest activity first. */
  readonly sessions: (
    orgId: string,
    filter: RequestFilter,
    limit: number
  ) => Effect.Effect<{ readonly object: "list"; readonly data: ReadonlyArray<SessionSummary> }, SqlError.SqlError>
  /** One session and its latest requests (at most `MAX_LIMIT`) as a timeline, oldest first; NotFound when it has none. */
  readonly session: (
    orgId: string,
    sessionId: string
  ) => Effect.Effect<
    SessionSummary & { readonly timeline: ReadonlyArray<RequestLogEntry> },
    SqlError.SqlError | AdminError
  >
  /** The org's spend (null: every org's) per UTC day and group, for export. */
  readonly spend: (
    orgId: string | null,
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
        WHERE ${requestIdCondition(sql, requestId)} AND org_id = ${orgId}`
        const row = rows[0]
        // another org's request is answered exactly like a missing one: ids do not leak across orgs
        if (row === undefined) return yield* AdminError.notFound("request", requestId)
        return toEntry(row)
      })

      const analytics = Effect.fn("RequestQueries.analytics")(function*(
        orgId: string | null,
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

      const spend = (orgId: string | null, groupBy: GroupBy, filter: RequestFilter) =>
        spendReport(orgId, groupBy, filter).pipe(Effect.provideService(SqlClient.SqlClient, sql))

      const sessions = Effect.fn("RequestQueries.sessions")(function*(
        orgId: string,
        filter: RequestFilter,
        limit: number
      ) {
        const rows = yield* sessionsStatement(sql, orgId, { filter, limit })
        return { object: "list" as const, data: rows.map(toSession) }
      })

      const session = Effect.fn("RequestQueries.session")(function*(orgId: string, sessionId: string) {
        const [summary] = yield* sessionsStatement(sql, orgId, { filter: { sessionId }, limit: 1 })
        if (summary === undefined) return yield* AdminError.notFound("session", sessionId)
        const rows = yield* listStatement(sql, orgId, { filter: { sessionId }, page: { limit: MAX_LIMIT } })
        return { ...toSession(summary), timeline: rows.slice(0, MAX_LIMIT).map(toEntry).reverse() }
      })

      return RequestQueries.of({ list, get, analytics, spend, sessions, session })
    })
  )
}
