/**
 * The SQL the request log's reads share: the WHERE clause of a filter, a request found by its id, each
 * grouping's key on both engines, and which rows are answered completions of unknown cost.
 */
import type { SqlClient, Statement } from "effect/sql"
import { timeOfOrderedId } from "../Ids.ts"
import type { GroupBy } from "../kernel/GroupBy.ts"
import { toStoredTime } from "../store/Rows.ts"
import type { RequestFilter } from "./RequestFilter.ts"

/**
 * The condition that finds the request `id` through an index. PostgreSQL's key is (created_at, id)
 * (migration 0021): an id the gateway minted spells the millisecond it was minted in, and the request's
 * row was created right after, so a second either side bounds the key's range. An id of another shape
 * (minted before ids were time-ordered, or made up) goes through the index kept for such ids, whose
 * condition this repeats in the same words so the planner knows it applies. SQLite finds either by
 * its key on id.
 */
export const requestIdCondition = (sql: SqlClient.SqlClient, id: string): Statement.Fragment => {
  const minted = timeOfOrderedId(id, "req")
  if (minted === undefined) return sql`id = ${id} AND (length(id) <> 27 OR substr(id, 1, 4) <> 'req_')`
  const from = toStoredTime(new Date(minted - 1000))
  const to = toStoredTime(new Date(minted + 1000))
  return sql`created_at >= ${from} AND created_at < ${to} AND id = ${id}`
}

/** The WHERE conditions of `filter` for one org (null: every org's requests), as one fragment. */
export const whereClause = (sql: SqlClient.SqlClient, orgId: string | null, filter: RequestFilter) => {
  // every org's: the requests of a known org (the log also keeps refusals of unknown keys, of no org)
  const conditions: Array<Statement.Fragment> = [orgId === null ? sql`org_id IS NOT NULL` : sql`org_id = ${orgId}`]
  if (filter.tags !== undefined) {
    const tags = filter.tags.values
    const all = filter.tags.mode === "all"
    conditions.push(sql.onDialectOrElse({
      // the row's JSON list, searched: at least one of the tags, or as many distinct matches as distinct tags
      sqlite: () =>
        all
          ? sql`(SELECT count(DISTINCT t.value) FROM json_each(tags) AS t WHERE t.value IN ${sql.in(tags)}) = ${
            new Set(tags).size
          }`
          : sql`EXISTS (SELECT 1 FROM json_each(tags) AS t WHERE t.value IN ${sql.in(tags)})`,
      // `&&` / `@>` against a text[] parameter: the operators the GIN index on `tags` serves; that index
      // leaves out rows without tags (which match no tag anyway), and the planner uses it only when the
      // condition says so in its own words
      orElse: () => sql`tags ${sql.literal(all ? "@>" : "&&")} ${tags}::text[] AND tags <> '{}'`
    }))
  }
  if (filter.model !== undefined) conditions.push(sql`(requested_model = ${filter.model} OR model = ${filter.model})`)
  if (filter.keyId !== undefined) conditions.push(sql`key_id = ${filter.keyId}`)
  if (filter.sessionId !== undefined) conditions.push(sql`session_id = ${filter.sessionId}`)
  const status = filter.status
  if (status !== undefined) {
    switch (status._tag) {
      case "Exact":
        conditions.push(sql`status = ${status.status}`)
        break
      case "Class":
        conditions.push(sql`status >= ${status.hundreds * 100} AND status < ${status.hundreds * 100 + 100}`)
        break
      case "Error":
        conditions.push(sql`status >= 400`)
        break
    }
  }
  if (filter.from !== undefined) conditions.push(sql`created_at >= ${filter.from}`)
  if (filter.to !== undefined) conditions.push(sql`created_at < ${filter.to}`)
  return sql.and(conditions)
}

export const GROUP_KEY_PG: Record<GroupBy, string> = {
  none: "NULL::text",
  org: "org_id",
  tag: "t.tag",
  // the model as the client addressed it, so an answered and a failed request of one model are one group
  // (the provider's own name, `gpt-4o-2024-08-06`, is the row's `model`); the provider's when none was read
  model: "coalesce(requested_model, model)",
  // the configured provider that answered (the first round's target); null when none did
  provider: "provider",
  key: "key_id",
  session: "session_id",
  hour: `to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24":00:00Z"')`,
  day: "to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')",
  status: "status::text",
  // the level a request ran at; null for one refused before a level was chosen
  compression: "compression_level"
}

/** The same keys from SQLite's columns: times are ISO text, tags a JSON list (`t` is `json_each`). */
export const GROUP_KEY_SQLITE: Record<GroupBy, string> = {
  ...GROUP_KEY_PG,
  none: "NULL",
  tag: "t.value",
  hour: "substr(created_at, 1, 13) || ':00:00Z'",
  day: "substr(created_at, 1, 10)",
  status: "CAST(status AS TEXT)"
}

/** An answered completion whose cost is unknown: its model had no price. */
export const UNPRICED = "cost_input IS NULL AND status < 400 AND kind IS NULL"

/** A row's cost in micro-dollars (NULL when unknown), summed without overflow on each engine. */
export const COST_SUM = {
  pg: "coalesce(sum(cost_input::int8 + cost_cached_input + cost_cache_write + cost_output), 0)::int8",
  sqlite: "coalesce(sum(cost_input + cost_cached_input + cost_cache_write + cost_output), 0)"
} as const

/** The sums analytics and sessions both give a group, as one SELECT list per engine (int8 on PostgreSQL). */
const sums = (engine: keyof typeof COST_SUM): string => {
  const int = engine === "pg" ? "::int8" : ""
  return [
    `count(*)${int} AS requests`,
    `count(*) FILTER (WHERE status >= 400)${int} AS errors`,
    `coalesce(sum(prompt_tokens), 0)${int} AS prompt_tokens`,
    `coalesce(sum(completion_tokens), 0)${int} AS completion_tokens`,
    `coalesce(sum(cached_tokens), 0)${int} AS cached_tokens`,
    `${COST_SUM[engine]} AS cost_micro`,
    `count(*) FILTER (WHERE ${UNPRICED})${int} AS unpriced`,
    `coalesce(sum(prompt_tokens_saved), 0)${int} AS prompt_tokens_saved`,
    `coalesce(sum(compression_saved_micro), 0)${int} AS saved_micro`
  ].join(",\n  ")
}

export const GROUP_SUMS = { pg: sums("pg"), sqlite: sums("sqlite") } as const

/** Micro-dollars as dollars: an integer over 1e6 prints as its exact six-decimal figure. */
export const usd = (micro: number) => micro / 1_000_000
