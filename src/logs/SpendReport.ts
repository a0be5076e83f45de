/**
 * An organization's spend per UTC day and group (key, model, tag, session, status, or none), for
 * export as JSON or CSV: each day's groups, most spent first, with requests, the unpriced ones (answered
 * completions whose model had no price: their cost is unknown, never 0), tokens and the cost, summed in
 * SQL as whole micro-dollars.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import type { GroupBy } from "../kernel/GroupBy.ts"
import type { RequestFilter } from "./RequestFilter.ts"
import { COST_SUM, GROUP_KEY_PG, GROUP_KEY_SQLITE, UNPRICED, usd, whereClause } from "./RequestLogSql.ts"

export interface SpendRow {
  /** The UTC date, `YYYY-MM-DD`. */
  readonly day: string
  /** The tag, model, key, session or status; null for none (and for untagged requests by tag). */
  readonly group: string | null
  readonly requests: number
  readonly unpriced_requests: number
  readonly prompt_tokens: number
  readonly completion_tokens: number
  readonly cost_usd: number
}

export interface SpendReport {
  readonly object: "list"
  readonly group_by: GroupBy
  readonly data: ReadonlyArray<SpendRow>
  /** More rows matched than `MAX_SPEND_ROWS`: narrow the period. */
  readonly has_more: boolean
}

/** One export's rows at most: a year of days for a handful of groups, or a month for a few hundred. */
export const MAX_SPEND_ROWS = 10_000

interface Row {
  readonly day: string
  readonly grp: string | null
  readonly requests: bigint | number
  readonly unpriced: bigint | number
  readonly prompt_tokens: bigint | number
  readonly completion_tokens: bigint | number
  readonly cost_micro: bigint | number
}

export const spendReport = Effect.fn("RequestQueries.spend")(function*(
  orgId: string | null,
  groupBy: GroupBy,
  filter: RequestFilter
) {
  const sql = yield* SqlClient.SqlClient
  const where = whereClause(sql, orgId, filter)
  const tagged = groupBy === "tag"
  const rows = yield* sql.onDialectOrElse({
    sqlite: () =>
      sql<Row>`SELECT ${sql.literal(GROUP_KEY_SQLITE.day)} AS day, ${sql.literal(GROUP_KEY_SQLITE[groupBy])} AS grp,
          count(*) AS requests,
          count(*) FILTER (WHERE ${sql.literal(UNPRICED)}) AS unpriced,
          coalesce(sum(prompt_tokens), 0) AS prompt_tokens,
          coalesce(sum(completion_tokens), 0) AS completion_tokens,
          ${sql.literal(COST_SUM.sqlite)} AS cost_micro
        FROM ${tagged ? sql`request_log LEFT JOIN json_each(request_log.tags) AS t` : sql`request_log`}
        WHERE ${where}
        GROUP BY 1, 2
        ORDER BY 1 ASC, cost_micro DESC, grp ASC NULLS LAST
        LIMIT ${MAX_SPEND_ROWS + 1}`,
    orElse: () =>
      sql<Row>`SELECT ${sql.literal(GROUP_KEY_PG.day)} AS day, ${sql.literal(GROUP_KEY_PG[groupBy])} AS grp,
          count(*)::int8 AS requests,
          count(*) FILTER (WHERE ${sql.literal(UNPRICED)})::int8 AS unpriced,
          coalesce(sum(prompt_tokens), 0)::int8 AS prompt_tokens,
          coalesce(sum(completion_tokens), 0)::int8 AS completion_tokens,
          ${sql.literal(COST_SUM.pg)} AS cost_micro
        FROM ${tagged ? sql`request_log LEFT JOIN LATERAL unnest(tags) AS t(tag) ON true` : sql`request_log`}
        WHERE ${where}
        GROUP BY 1, 2
        ORDER BY 1 ASC, cost_micro DESC, grp ASC NULLS LAST
        LIMIT ${MAX_SPEND_ROWS + 1}`
  })
  const report: SpendReport = {
    object: "list",
    group_by: groupBy,
    data: rows.slice(0, MAX_SPEND_ROWS).map((row) => ({
      day: row.day,
      group: row.grp,
      requests: Number(row.requests),
      unpriced_requests: Number(row.unpriced),
      prompt_tokens: Number(row.prompt_tokens),
      completion_tokens: Number(row.completion_tokens),
      cost_usd: usd(Number(row.cost_micro))
    })),
    has_more: rows.length > MAX_SPEND_ROWS
  }
  return report
})

/** A CSV field: quoted when it holds a comma, a quote or a line break (RFC 4180); empty for null. */
const field = (value: string | number | null): string => {
  if (value === null) return ""
  const text = String(value)
  return /[",\r\n]/.test(text) ? `"${text.replaceAll("\"", "\"\"")}"` : text
}

/** The report as CSV, one line per day and group, with a header; dollars to six decimals. */
export const spendCsv = (report: SpendReport): string =>
  [
    ["day", report.group_by, "requests", "unpriced_requests", "prompt_tokens", "completion_tokens", "cost_usd"].join(
      ","
    ),
    ...report.data.map((row) =>
      [
        field(row.day),
        field(row.group),
        field(row.requests),
        field(row.unpriced_requests),
        field(row.prompt_tokens),
        field(row.completion_tokens),
        row.cost_usd.toFixed(6)
      ].join(",")
    )
  ].join("\r\n") + "\r\n"
