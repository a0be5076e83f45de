/**
 * A coding agent's sessions as the request log holds them: every request that carried one session id
 * (`RequestDraft.sessionOf`), summed: when it started and last asked, its requests and errors, tokens
 * and the share of the prompt read from the provider's cache, what it cost and what compression saved,
 * the shared tools it ran, the models, keys and client it used, and its developer (the `developer:`
 * tag `svc-gateway launch` puts on every request). Newest activity first.
 */
import type { SqlClient } from "effect/sql"
import { type RequestFilter } from "./RequestFilter.ts"
import { GROUP_SUMS, usd, whereClause } from "./RequestLogSql.ts"

export interface SessionSummary {
  readonly session_id: string
  /** The client's `User-Agent` on the session's latest request. */
  readonly client: string | null
  /** From the session's `developer:<email>` tag; null without one. */
  readonly developer: string | null
  readonly key_ids: ReadonlyArray<string>
  readonly models: ReadonlyArray<string>
  readonly first_request_at: string
  readonly last_request_at: string
  readonly requests: number
  readonly errors: number
  readonly prompt_tokens: number
  readonly completion_tokens: number
  readonly cached_tokens: number
  /** cached / prompt tokens: how much of what the session sent the provider read from its cache. */
  readonly cache_hit_rate: number
  readonly cost_usd: number
  readonly unpriced_requests: number
  readonly prompt_tokens_saved: number
  readonly compression_saved_usd: number
  /** Shared tools the gateway ran for the session. */
  readonly svc_tool_runs: number
}

interface SessionRow {
  readonly session_id: string
  readonly client: string | null
  readonly developer: string | null
  readonly key_ids: ReadonlyArray<string | null> | string
  readonly models: ReadonlyArray<string | null> | string
  readonly first_at: Date | string
  readonly last_at: Date | string
  readonly requests: bigint | number
  readonly errors: bigint | number
  readonly prompt_tokens: bigint | number
  readonly completion_tokens: bigint | number
  readonly cached_tokens: bigint | number
  readonly cost_micro: bigint | number
  readonly unpriced: bigint | number
  readonly prompt_tokens_saved: bigint | number
  readonly saved_micro: bigint | number
  readonly tool_runs: bigint | number
}

/** The tag that names a request's developer. */
export const DEVELOPER = "developer:"

/** The org's sessions matching `filter` (a session id, a period...), newest activity first. */
export const sessionsStatement = (
  sql: SqlClient.SqlClient,
  orgId: string,
  { filter, limit }: { readonly filter: RequestFilter; readonly limit: number }
) => {
  const where = sql`${whereClause(sql, orgId, filter)} AND session_id IS NOT NULL`
  return sql.onDialectOrElse({
    sqlite: () =>
      sql<SessionRow>`SELECT session_id,
          max(user_agent) AS client,
          max((SELECT substr(t.value, ${DEVELOPER.length + 1}) FROM json_each(tags) AS t
            WHERE t.value LIKE ${`${DEVELOPER}%`} LIMIT 1)) AS developer,
          json_group_array(DISTINCT key_id) AS key_ids,
          json_group_array(DISTINCT coalesce(requested_model, model)) AS models,
          min(created_at) AS first_at, max(created_at) AS last_at,
          ${sql.literal(GROUP_SUMS.sqlite)},
          coalesce(sum(json_array_length(svc_tools)), 0) AS tool_runs
        FROM request_log WHERE ${where}
        GROUP BY session_id ORDER BY last_at DESC, session_id LIMIT ${limit}`,
    orElse: () =>
      sql<SessionRow>`SELECT session_id,
          (array_agg(user_agent ORDER BY created_at DESC))[1] AS client,
          max((SELECT substr(t, ${DEVELOPER.length + 1}) FROM unnest(tags) AS t
            WHERE t LIKE ${`${DEVELOPER}%`} LIMIT 1)) AS developer,
          array_agg(DISTINCT key_id) AS key_ids,
          array_agg(DISTINCT coalesce(requested_model, model)) AS models,
          min(created_at) AS first_at, max(created_at) AS last_at,
          ${sql.literal(GROUP_SUMS.pg)},
          coalesce(sum(cardinality(svc_tools)), 0)::int8 AS tool_runs
        FROM request_log WHERE ${where}
        GROUP BY session_id ORDER BY last_at DESC, session_id LIMIT ${limit}`
  })
}

/** A list as either engine returns it (SQLite's JSON text), nulls and duplicates out, sorted. */
const listOf = (value: ReadonlyArray<string | null> | string): ReadonlyArray<string> => {
  const items = typeof value === "string" ? JSON.parse(value) as ReadonlyArray<string | null> : value
  return [...new Set(items.filter((item): item is string => item !== null))].sort()
}

const iso = (value: Date | string): string => (value instanceof Date ? value : new Date(value)).toISOString()

export const toSession = (row: SessionRow): SessionSummary => {
  const prompt = Number(row.prompt_tokens)
  const cached = Number(row.cached_tokens)
  return {
    session_id: row.session_id,
    client: row.client,
    developer: row.developer,
    key_ids: listOf(row.key_ids),
    models: listOf(row.models),
    first_request_at: iso(row.first_at),
    last_request_at: iso(row.last_at),
    requests: Number(row.requests),
    errors: Number(row.errors),
    prompt_tokens: prompt,
    completion_tokens: Number(row.completion_tokens),
    cached_tokens: cached,
    cache_hit_rate: prompt === 0 ? 0 : Math.round((cached / prompt) * 10_000) / 10_000,
    cost_usd: usd(Number(row.cost_micro)),
    unpriced_requests: Number(row.unpriced),
    prompt_tokens_saved: Number(row.prompt_tokens_saved),
    compression_saved_usd: usd(Number(row.saved_micro)),
    svc_tool_runs: Number(row.tool_runs)
  }
}
