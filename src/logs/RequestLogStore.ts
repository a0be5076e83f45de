/**
 * The SQL side of the request log: one multi-row insert per batch and one small retention delete. The
 * writer (`RequestLogWriter.ts`) decides when and what; this module only talks to the `request_log`
 * table (migration 0003), so tests can wrap it with a store that fails or hangs.
 */
import { Context, Effect, Layer } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import { toStoredTime } from "../store/Rows.ts"
import { columnsOf, int } from "./RequestLogColumns.ts"
import type { RequestRecord } from "./RequestRecord.ts"

export class RequestLogStore extends Context.Service<RequestLogStore, {
  /**
   * Inserts the rows in ONE statement; a row whose id is already stored is skipped, so a batch can be
   * sent again after a failure or a replay without duplicating anything.
   */
  readonly insert: (rows: ReadonlyArray<RequestRecord>) => Effect.Effect<void, SqlError.SqlError>
  /** Deletes at most `limit` rows created before `cutoff`; returns how many it deleted. */
  readonly deleteBefore: (cutoff: Date, limit: number) => Effect.Effect<number, SqlError.SqlError>
}>()("svc-gateway/RequestLogStore") {
  static readonly layer = Layer.effect(
    RequestLogStore,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient

      // PostgreSQL takes the batch as one typed array per column (`RequestLogColumns.ts`).
      // A batch goes first without ON CONFLICT: the clause makes every row a speculative insertion on
      // PostgreSQL, a tenth of the statement's work (measured: 13.3 -> 12.0 us a row). A batch that
      // repeats a stored id (sent again after a timeout whose first try committed, a replayed spill)
      // fails whole on the unique key and is sent again with the clause, which skips what is stored.
      const insertPg = (batch: ReturnType<typeof columnsOf>, skipStored: boolean) =>
        sql.unsafe(skipStored ? `${batch.statement} ON CONFLICT (id) DO NOTHING` : batch.statement, batch.parameters)

      // SQLite reads the batch as one JSON parameter with json_each: one bound parameter whatever the
      // batch size, and list columns hold JSON text. A row leaves out its nulls, empty lists and zero
      // counts (`toRow`), which the SELECT puts back; the savings columns are in the statement only when
      // a row of the batch has a saving to store. `WHERE true` tells its parser that ON CONFLICT belongs
      // to the INSERT, not to a join.
      const insertSqlite = (batch: string, savings: boolean, skipStored: boolean) =>
        sql`INSERT INTO request_log (${sql.literal(INSERTED)}${sql.literal(savings ? `, ${SAVINGS}` : "")})
      SELECT
        r.value ->> 'id', r.value ->> 'created_at', r.value ->> 'org_id', r.value ->> 'key_id',
        r.value ->> 'requested_model', r.value ->> 'model', r.value ->> 'provider', r.value ->> 'status',
        r.value ->> 'error_code', r.value ->> 'stream', COALESCE(r.value ->> 'tags', '[]'),
        COALESCE(r.value ->> 'prompt_tokens', 0), COALESCE(r.value ->> 'completion_tokens', 0),
        COALESCE(r.value ->> 'cached_tokens', 0), COALESCE(r.value ->> 'reasoning_tokens', 0),
        COALESCE(r.value ->> 'svc_tools', '[]'), COALESCE(r.value ->> 'attempts', 0), r.value ->> 'latency_ms',
        r.value ->> 'ttft_ms', r.value ->> 'user_agent', r.value ->> 'prompt_text', r.value ->> 'completion_text',
        r.value ->> 'session_id', r.value ->> 'compression_level', r.value ->> 'kind',
        r.value ->> 'cost_input', r.value ->> 'cost_cached_input', r.value ->> 'cost_cache_write',
        r.value ->> 'cost_output'${sql.literal(savings ? SAVINGS_SQLITE : "")}
      FROM json_each(${batch}) AS r WHERE true
      ${sql.literal(skipStored ? "ON CONFLICT (id) DO NOTHING" : "")}`

      const insert = (rows: ReadonlyArray<RequestRecord>) =>
        Effect.suspend(() => {
          if (rows.length === 0) return Effect.void
          let statement: (skipStored: boolean) => Effect.Effect<unknown, SqlError.SqlError>
          try {
            statement = sql.onDialectOrElse({
              sqlite: () => {
                const mapped = rows.map(toRow)
                const savings = mapped.some(hasSavings)
                const batch = JSON.stringify(mapped)
                return (skipStored: boolean) => insertSqlite(batch, savings, skipStored)
              },
              orElse: () => {
                const columns = columnsOf(rows)
                return (skipStored: boolean) => insertPg(columns, skipStored)
              }
            })
          } catch (cause) {
            return Effect.fail(unstorable(cause))
          }
          return Effect.catchIf(statement(false), isStoredId, () => statement(true))
        }).pipe(Effect.asVoid, Effect.catchDefect(asSqlError))

      // Small batches through the created_at index; SKIP LOCKED lets two gateways on one PostgreSQL share
      // the work instead of waiting on each other (SQLite has one writer and no such clause).
      const deleteBefore = (cutoff: Date, limit: number) =>
        sql.onDialectOrElse({
          sqlite: () =>
            sql<{ readonly id: string }>`DELETE FROM request_log WHERE id IN (
            SELECT id FROM request_log WHERE created_at < ${cutoff} LIMIT ${limit}) RETURNING id`.pipe(
              Effect.map((rows) => rows.length)
            ),
          orElse: () =>
            sql<{ readonly deleted: number }>`WITH doomed AS (
              DELETE FROM request_log WHERE id IN (
                SELECT id FROM request_log WHERE created_at < ${cutoff} LIMIT ${limit} FOR UPDATE SKIP LOCKED)
              RETURNING 1)
            SELECT count(*)::int AS deleted FROM doomed`.pipe(Effect.map((rows) => rows[0]?.deleted ?? 0))
        })

      return RequestLogStore.of({ insert, deleteBefore })
    })
  )
}

/** The columns every batch fills, in the order both engines' SELECTs give them. */
const INSERTED = `id, created_at, org_id, key_id, requested_model, model, provider, status, error_code, stream, tags,
  prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens, svc_tools, attempts, latency_ms, ttft_ms,
  user_agent, prompt_text, completion_text, session_id, compression_level, kind, cost_input, cost_cached_input,
  cost_cache_write, cost_output`

/** What compression saved: filled only by a batch where some row saved something (`hasSavings`). */
const SAVINGS = "prompt_tokens_saved, prompt_tokens_saved_net, shadow_tokens_saved_safe, " +
  "shadow_tokens_saved_aggressive, compression_saved_micro"
const SAVINGS_SQLITE = ", r.value ->> 'prompt_tokens_saved', r.value ->> 'prompt_tokens_saved_net', " +
  "r.value ->> 'shadow_tokens_saved_safe', r.value ->> 'shadow_tokens_saved_aggressive', " +
  "r.value ->> 'compression_saved_micro'"

const hasSavings = (row: ReturnType<typeof toRow>): boolean =>
  row.prompt_tokens_saved !== undefined || row.prompt_tokens_saved_net !== undefined ||
  row.shadow_tokens_saved_safe !== undefined || row.shadow_tokens_saved_aggressive !== undefined ||
  row.compression_saved_micro !== undefined

/** A defect while sending a statement, as a failure the writer retries rather than a crash. */
const asSqlError = (defect: unknown) =>
  Effect.fail(
    new SqlError.SqlError({
      reason: new SqlError.UnknownError({ cause: defect, message: "request log insert failed", operation: "insert" })
    })
  )

/** A row that is not a `RequestRecord` at all (a bug upstream): it cannot be stored, ever. */
class UnstorableRow extends Error {}

const unstorable = (cause: unknown) =>
  new SqlError.SqlError({
    reason: new SqlError.UnknownError({
      cause: new UnstorableRow(`not a request record: ${String(cause)}`, { cause }),
      message: "request log row cannot be encoded",
      operation: "insert"
    })
  })

/** The engine's own error codes behind a failure: PostgreSQL's SQLSTATE, SQLite's extended result code. */
const codesOf = (error: SqlError.SqlError): { readonly sqlstate: unknown; readonly errcode: unknown } => {
  const cause: unknown = error.reason.cause
  if (typeof cause !== "object" || cause === null) return { sqlstate: undefined, errcode: undefined }
  return { sqlstate: "code" in cause ? cause.code : undefined, errcode: "errcode" in cause ? cause.errcode : undefined }
}

/** Whether the store refused a row for an id it holds already (PostgreSQL 23505; SQLite's primary key or unique). */
export const isStoredId = (error: SqlError.SqlError): boolean => {
  const { errcode, sqlstate } = codesOf(error)
  // SQLITE_CONSTRAINT_PRIMARYKEY, SQLITE_CONSTRAINT_UNIQUE
  return sqlstate === "23505" || errcode === 1555 || errcode === 2067
}

/**
 * Whether the store refused these rows for what they hold (bad data, a constraint, a value too large
 * for an index), rather than for being unavailable. Only such failures are worth isolating row by row;
 * anything else (connection lost, server restarting, disk full, even a bug in the statement) is retried
 * and the rows are kept.
 */
export const isRejectedRow = (error: SqlError.SqlError): boolean => {
  if (error.reason.cause instanceof UnstorableRow) return true
  const { errcode, sqlstate } = codesOf(error)
  // PostgreSQL: 22 data exception, 23 integrity constraint, 54000 program limit exceeded (index row size)
  if (
    typeof sqlstate === "string" && (sqlstate.startsWith("22") || sqlstate.startsWith("23") || sqlstate === "54000")
  ) return true
  // SQLite's primary result codes: 18 TOOBIG, 19 CONSTRAINT, 20 MISMATCH
  return typeof errcode === "number" && [18, 19, 20].includes(errcode & 0xff)
}

const intOrAbsent = (value: number | null): number | undefined =>
  value === null || !Number.isFinite(value) ? undefined : int(value)
const float = (value: number): number => Number.isFinite(value) ? value : 0
const floatOrAbsent = (value: number | null): number | undefined =>
  value === null || !Number.isFinite(value) ? undefined : value

// NUL and unpaired surrogates cannot travel as JSON text (the engine rejects the whole statement)
// eslint-disable-next-line no-control-regex -- NUL is the character this pattern is there to find
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g
const text = (value: string): string => value.replace(UNSTORABLE, "\uFFFD")
/** Nulls are left out of the row: `JSON.stringify` drops an undefined field, and the column reads NULL. */
const textOrAbsent = (value: string | null): string | undefined => value === null ? undefined : text(value)
const listOrAbsent = (values: ReadonlyArray<string>): ReadonlyArray<string> | undefined =>
  values.length === 0 ? undefined : values.map(text)
/** A zero count is left out; the SELECT reads it back as 0. */
const countOrAbsent = (value: number): number | undefined => {
  const n = int(value)
  return n === 0 ? undefined : n
}

/**
 * The record as a `request_log` row for `json_each` (SQLite); values the column types cannot hold are
 * coerced, not rejected, and nulls, empty lists and zero counts are left out (the insert restores them).
 */
const toRow = (record: RequestRecord) => ({
  id: text(record.id),
  created_at: toStoredTime(Number.isNaN(record.createdAt.getTime()) ? new Date() : record.createdAt),
  org_id: textOrAbsent(record.orgId),
  key_id: textOrAbsent(record.keyId),
  requested_model: textOrAbsent(record.requestedModel),
  model: textOrAbsent(record.model),
  provider: textOrAbsent(record.provider),
  status: int(record.status),
  error_code: textOrAbsent(record.errorCode),
  stream: record.stream,
  tags: listOrAbsent(record.tags),
  prompt_tokens: countOrAbsent(record.promptTokens),
  completion_tokens: countOrAbsent(record.completionTokens),
  cached_tokens: countOrAbsent(record.cachedTokens),
  reasoning_tokens: countOrAbsent(record.reasoningTokens),
  svc_tools: listOrAbsent(record.svcTools),
  attempts: countOrAbsent(record.attempts),
  latency_ms: float(record.latencyMs),
  ttft_ms: floatOrAbsent(record.ttftMs),
  // a zero saving is left out too (most rows): read back as 0 wherever a level was chosen
  prompt_tokens_saved: record.promptTokensSaved === null ? undefined : countOrAbsent(record.promptTokensSaved),
  compression_level: textOrAbsent(record.compressionLevel),
  prompt_tokens_saved_net: record.promptTokensSavedNet === null
    ? undefined
    : countOrAbsent(record.promptTokensSavedNet),
  shadow_tokens_saved_safe: intOrAbsent(record.shadowTokensSavedSafe),
  shadow_tokens_saved_aggressive: intOrAbsent(record.shadowTokensSavedAggressive),
  // a zero or unknown saving is left out, as the token savings are
  compression_saved_micro: record.compressionSavedMicro === null || record.compressionSavedMicro === 0
    ? undefined
    : int(record.compressionSavedMicro),
  user_agent: textOrAbsent(record.userAgent),
  prompt_text: textOrAbsent(record.promptText),
  completion_text: textOrAbsent(record.completionText),
  session_id: textOrAbsent(record.sessionId),
  // left out for a completion, the kind of nearly every row: read back as one
  kind: record.kind === "completion" ? undefined : record.kind,
  // absent (NULL) when nothing was billed or a price was unknown
  cost_input: record.cost === null ? undefined : int(record.cost.input),
  cost_cached_input: record.cost === null ? undefined : int(record.cost.cachedInput),
  cost_cache_write: record.cost === null ? undefined : int(record.cost.cacheWrite),
  cost_output: record.cost === null ? undefined : int(record.cost.output)
})
