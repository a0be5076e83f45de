/**
 * A small request log with known answers, inserted straight into `request_log` for the query and admin
 * route suites. Org ids are unique per call, so runs against the shared PostgreSQL database never see
 * each other's rows; row ids are `<org>-<suffix>` for the same reason.
 *
 * The main seed (eight rows, `SEED`) is what the hand-computed analytics in the tests refer to:
 *
 * | n | created_at (UTC)         | key   | requested        | model    | status | tags        | p   | c   | cached | reas | latency | session |
 * | 1 | 03-01 08:00:00           | key_a | openai/gpt-4o    | gpt-4o   | 200    | prod, chat  | 100 | 50  | 10     | 0    | 100     | –       |
 * | 2 | 03-01 09:00:00           | key_a | openai/gpt-4o    | gpt-4o   | 200    | prod        | 200 | 100 | 0      | 20   | 200     | cc-1    |
 * | 3 | 03-02 10:00:00           | key_b | anthropic/claude | claude-3 | 429    | dev         | 50  | 0   | 0      | 0    | 30      | –       |
 * | 4 | 03-02 10:00:00           | key_b | anthropic/claude | claude-3 | 200    | dev, chat   | 300 | 200 | 100    | 50   | 400     | cc-1    |
 * | 5 | 03-02 10:00:00           | key_a | openai/gpt-4o    | –        | 502    | –           | 80  | 0   | 0      | 0    | 1000    | cc-1    |
 * | 6 | 03-03 23:59:59.999       | –     | local/echo       | echo     | 200    | prod, batch | 10  | 10  | 0      | 0    | 5       | cc-2    |
 * | 7 | 03-04 00:00:00           | key_c | local/echo       | echo     | 404    | batch       | 0   | 0   | 0      | 0    | 2       | –       |
 * | 8 | 03-04 00:00:00.000500    | key_c | local/echo       | echo     | 200    | batch, chat | 40  | 60  | 0      | 0    | 50      | cc-2    |
 *
 * Rows 3–5 share a timestamp; rows 7 and 8 share a millisecond and differ in the microsecond. Only row 8
 * has prompt/completion text. Sessions (a coding client's `X-Claude-Code-Session-Id`) cross keys on purpose.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { unique } from "../utils/TestStore.ts"

export interface SeedRow {
  readonly suffix: string
  /** ISO 8601 with `Z`, microseconds allowed. */
  readonly createdAt: string
  readonly keyId: string | null
  readonly requestedModel: string | null
  readonly model: string | null
  readonly status: number
  readonly tags: ReadonlyArray<string>
  readonly promptTokens: number
  readonly completionTokens: number
  readonly cachedTokens: number
  readonly reasoningTokens: number
  readonly latencyMs: number
  readonly sessionId?: string
  readonly promptText?: string
  readonly completionText?: string
  /** Micro-dollars: input, cached input, cache writes, output; absent: no cost (unknown). */
  readonly cost?: readonly [number, number, number, number]
}

const row = (
  n: number,
  createdAt: string,
  keyId: string | null,
  requestedModel: string,
  model: string | null,
  status: number,
  tags: ReadonlyArray<string>,
  [promptTokens, completionTokens, cachedTokens, reasoningTokens]: readonly [number, number, number, number],
  latencyMs: number
): SeedRow => ({
  suffix: `r${n}`,
  createdAt,
  keyId,
  requestedModel,
  model,
  status,
  tags,
  promptTokens,
  completionTokens,
  cachedTokens,
  reasoningTokens,
  latencyMs
})

export const SEED: ReadonlyArray<SeedRow> = [
  row(1, "2026-03-01T08:00:00Z", "key_a", "openai/gpt-4o", "gpt-4o", 200, ["prod", "chat"], [100, 50, 10, 0], 100),
  {
    ...row(2, "2026-03-01T09:00:00Z", "key_a", "openai/gpt-4o", "gpt-4o", 200, ["prod"], [200, 100, 0, 20], 200),
    sessionId: "cc-1"
  },
  row(3, "2026-03-02T10:00:00Z", "key_b", "anthropic/claude", "claude-3", 429, ["dev"], [50, 0, 0, 0], 30),
  {
    ...row(4, "2026-03-02T10:00:00Z", "key_b", "anthropic/claude", "claude-3", 200, ["dev", "chat"], [
      300,
      200,
      100,
      50
    ], 400),
    sessionId: "cc-1"
  },
  {
    ...row(5, "2026-03-02T10:00:00Z", "key_a", "openai/gpt-4o", null, 502, [], [80, 0, 0, 0], 1000),
    sessionId: "cc-1"
  },
  {
    ...row(6, "2026-03-03T23:59:59.999Z", null, "local/echo", "echo", 200, ["prod", "batch"], [10, 10, 0, 0], 5),
    sessionId: "cc-2"
  },
  row(7, "2026-03-04T00:00:00Z", "key_c", "local/echo", "echo", 404, ["batch"], [0, 0, 0, 0], 2),
  {
    ...row(8, "2026-03-04T00:00:00.0005Z", "key_c", "local/echo", "echo", 200, ["batch", "chat"], [40, 60, 0, 0], 50),
    sessionId: "cc-2",
    promptText: "hello",
    completionText: "world"
  }
]

/** Rows of another org that look like the main seed's (same keys, tags, models and a session): never to be seen. */
export const OTHER_ORG_SEED: ReadonlyArray<SeedRow> = [
  {
    ...row(1, "2026-03-01T08:30:00Z", "key_a", "openai/gpt-4o", "gpt-4o", 200, ["prod", "chat"], [7, 7, 7, 7], 7),
    sessionId: "cc-1"
  },
  row(2, "2026-03-02T10:00:00Z", "key_b", "anthropic/claude", "claude-3", 500, ["dev"], [9, 9, 9, 9], 9),
  row(3, "2026-03-04T00:00:00Z", "key_c", "local/echo", "echo", 200, ["batch"], [3, 3, 3, 3], 3)
]

/**
 * `count` rows for pagination: timestamps repeat in runs of four, and every fifth row sits a few
 * microseconds after the second it shares with others, so pages often end inside a run of equal times.
 */
export const pagingSeed = (count: number): ReadonlyArray<SeedRow> =>
  Array.from({ length: count }, (_, i) => {
    const second = String(Math.floor(i / 4)).padStart(2, "0")
    const micros = i % 5 === 0 ? `.00000${(i % 9) + 1}` : ""
    const n = String(i).padStart(3, "0")
    return {
      ...row(
        i,
        `2026-04-01T00:00:${second}${micros}Z`,
        i % 2 === 0 ? "key_even" : "key_odd",
        "local/echo",
        "echo",
        200,
        i % 3 === 0 ? ["third"] : [],
        [1, 1, 0, 0],
        1
      ),
      suffix: `p${n}`
    }
  })

/** `2026-03-04T00:00:00.0005Z` with six fractional digits, the embedded store's time text (`toStoredTime`). */
const storedText = (iso: string): string => {
  const [, whole, fraction = ""] = /^(.*?:\d\d)(?:\.(\d+))?Z$/.exec(iso) ?? []
  if (whole === undefined) throw new Error(`not a seed time: ${iso}`)
  return `${whole}.${fraction.padEnd(6, "0")}Z`
}

/** Inserts `rows` for `orgId`; the ids are `<orgId>-<suffix>`. */
export const insertRows = (orgId: string, rows: ReadonlyArray<SeedRow>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // times and lists as each engine holds them: timestamptz and text[], or ISO text and JSON text
    const time = (iso: string) =>
      sql.onDialectOrElse({ sqlite: () => sql`${storedText(iso)}`, orElse: () => sql`${iso}::timestamptz` })
    const list = (values: ReadonlyArray<string>) =>
      sql.onDialectOrElse({ sqlite: () => sql`${JSON.stringify(values)}`, orElse: () => sql`${values}::text[]` })
    for (const r of rows) {
      yield* sql`INSERT INTO request_log (id, created_at, org_id, key_id, requested_model, model, provider, status,
          error_code, stream, tags, prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens, svc_tools,
          attempts, latency_ms, ttft_ms, user_agent, session_id, prompt_text, completion_text, cost_input,
          cost_cached_input, cost_cache_write, cost_output)
        VALUES (${`${orgId}-${r.suffix}`}, ${time(r.createdAt)}, ${orgId}, ${r.keyId}, ${r.requestedModel},
          ${r.model}, ${r.model === null ? null : "test"}, ${r.status}, ${r.status >= 400 ? "some_error" : null},
          ${false}, ${list(r.tags)}, ${r.promptTokens}, ${r.completionTokens}, ${r.cachedTokens},
          ${r.reasoningTokens}, ${list([])}, ${1}, ${r.latencyMs}, ${null}, ${"seed"}, ${r.sessionId ?? null}, ${
        r.promptText ?? null
      },
          ${r.completionText ?? null}, ${r.cost?.[0] ?? null}, ${r.cost?.[1] ?? null}, ${r.cost?.[2] ?? null},
          ${r.cost?.[3] ?? null})`
    }
  })

/** A fresh org row (the admin routes check the org exists) and its id. */
export const insertOrg = (label: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const id = unique(label)
    yield* sql`INSERT INTO orgs (id, name) VALUES (${id}, ${id})`
    return id
  })

/** The seed's ids in the order the log lists them: newest first, ties by id descending. */
export const expectedOrder = (orgId: string, rows: ReadonlyArray<SeedRow>): ReadonlyArray<string> =>
  [...rows]
    .map((r) => ({ id: `${orgId}-${r.suffix}`, micros: toMicros(r.createdAt) }))
    .sort((a, b) => (a.micros === b.micros ? (a.id < b.id ? 1 : -1) : b.micros > a.micros ? 1 : -1))
    .map((r) => r.id)

/** Microseconds since the epoch of an ISO string with up to six fraction digits. */
const toMicros = (iso: string): bigint => {
  const match = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?Z$/.exec(iso)
  if (match === null) throw new Error(`bad seed time ${iso}`)
  const fraction = (match[2] ?? "").padEnd(6, "0")
  return BigInt(Date.parse(`${match[1]}Z`)) * 1000n + BigInt(fraction)
}
