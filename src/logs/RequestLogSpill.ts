/**
 * The request log's spill file: rows the store could not take in time, one JSON record per line,
 * appended only. A replay first renames the file to `<file>.replaying`, so rows spilled while it runs
 * start a new file and nothing is appended to a file being read; the renamed file is removed once all
 * of it is stored. A replay cut short (outage, crash) leaves `<file>.replaying` to be read again;
 * the store skips a row it already has (`ON CONFLICT ... DO NOTHING`), so the repeat is harmless.
 */
import { Data, Effect, Option, Schema, Stream } from "effect"
import { appendFileSync, createReadStream, existsSync, mkdirSync } from "node:fs"
import { appendFile, mkdir, rename, rm } from "node:fs/promises"
import { dirname } from "node:path"
import { createInterface } from "node:readline"
import { COMPRESSION_LEVELS } from "../kernel/CompressionLevel.ts"
import { PRIVATE_DIR, PRIVATE_FILE } from "../store/PrivateFiles.ts"
import { REQUEST_KINDS, type RequestRecord } from "./RequestRecord.ts"

/** The spill file could not be written, renamed or read. */
export class SpillError extends Data.TaggedError("SpillError")<{
  readonly path: string
  readonly operation: string
  readonly cause: unknown
}> {
  override get message() {
    return `request log spill file ${this.path}: ${this.operation} failed: ${String(this.cause)}`
  }
}

const RecordLine = Schema.fromJsonString(Schema.Struct({
  id: Schema.String,
  createdAt: Schema.DateFromString,
  orgId: Schema.NullOr(Schema.String),
  keyId: Schema.NullOr(Schema.String),
  requestedModel: Schema.NullOr(Schema.String),
  model: Schema.NullOr(Schema.String),
  provider: Schema.NullOr(Schema.String),
  status: Schema.Number,
  errorCode: Schema.NullOr(Schema.String),
  stream: Schema.Boolean,
  tags: Schema.Array(Schema.String),
  promptTokens: Schema.Number,
  completionTokens: Schema.Number,
  cachedTokens: Schema.Number,
  reasoningTokens: Schema.Number,
  svcTools: Schema.Array(Schema.String),
  attempts: Schema.Number,
  // JSON has no NaN or Infinity: `JSON.stringify` wrote them as null
  latencyMs: Schema.NullOr(Schema.Number),
  ttftMs: Schema.NullOr(Schema.Number),
  // absent in lines spilled before compression was logged
  compressionLevel: Schema.optionalKey(Schema.NullOr(Schema.Literals(COMPRESSION_LEVELS))),
  promptTokensSaved: Schema.optionalKey(Schema.NullOr(Schema.Number)),
  promptTokensSavedNet: Schema.optionalKey(Schema.NullOr(Schema.Number)),
  shadowTokensSavedSafe: Schema.optionalKey(Schema.NullOr(Schema.Number)),
  shadowTokensSavedAggressive: Schema.optionalKey(Schema.NullOr(Schema.Number)),
  // absent in lines spilled before savings were priced
  compressionSavedMicro: Schema.optionalKey(Schema.NullOr(Schema.Number)),
  userAgent: Schema.NullOr(Schema.String),
  promptText: Schema.NullOr(Schema.String),
  completionText: Schema.NullOr(Schema.String),
  // absent in lines spilled before sessions were logged
  sessionId: Schema.optionalKey(Schema.NullOr(Schema.String)),
  // absent in lines spilled before kinds were logged: those were all completions
  kind: Schema.optionalKey(Schema.Literals(REQUEST_KINDS)),
  // absent in lines spilled before costs were logged
  cost: Schema.optionalKey(Schema.NullOr(Schema.Struct({
    input: Schema.Number,
    cachedInput: Schema.Number,
    cacheWrite: Schema.Number,
    output: Schema.Number,
    total: Schema.Number
  })))
}))

const decodeLine = Schema.decodeUnknownOption(RecordLine)

/** A spilled line back as a record; `None` for a line that is not one (e.g. cut short by a crash). */
export const parseLine = (line: string): Option.Option<RequestRecord> =>
  Option.map(decodeLine(line), (record) => ({
    ...record,
    kind: record.kind ?? "completion",
    cost: record.cost ?? null,
    compressionSavedMicro: record.compressionSavedMicro ?? null,
    latencyMs: record.latencyMs ?? 0,
    sessionId: record.sessionId ?? null,
    compressionLevel: record.compressionLevel ?? null,
    promptTokensSaved: record.promptTokensSaved ?? null,
    promptTokensSavedNet: record.promptTokensSavedNet ?? null,
    shadowTokensSavedSafe: record.shadowTokensSavedSafe ?? null,
    shadowTokensSavedAggressive: record.shadowTokensSavedAggressive ?? null
  }))

const LINES_PER_WRITE = 1000

const lines = (rows: ReadonlyArray<RequestRecord>, from: number): string => {
  let out = ""
  for (const row of rows.slice(from, from + LINES_PER_WRITE)) out += `${JSON.stringify(row)}\n`
  return out
}

// the rows may hold prompt and completion text: readable by the gateway's user only
const FILE_MODE = PRIVATE_FILE

/** Appends the rows (a few thousand per write, so a large spill is not one huge string). */
export const appendRows = (path: string, rows: ReadonlyArray<RequestRecord>): Effect.Effect<void, SpillError> =>
  Effect.tryPromise({
    try: async () => {
      await mkdir(dirname(path), { recursive: true, mode: PRIVATE_DIR })
      for (let from = 0; from < rows.length; from += LINES_PER_WRITE) {
        await appendFile(path, lines(rows, from), { mode: FILE_MODE })
      }
    },
    catch: (cause) => new SpillError({ path, operation: "append", cause })
  })

/** As `appendRows`, blocking: only for rows recorded after the writer stopped, during shutdown. */
export const appendRowsSync = (path: string, rows: ReadonlyArray<RequestRecord>): void => {
  mkdirSync(dirname(path), { recursive: true, mode: PRIVATE_DIR })
  for (let from = 0; from < rows.length; from += LINES_PER_WRITE) {
    appendFileSync(path, lines(rows, from), { mode: FILE_MODE })
  }
}

export const replayPathOf = (path: string): string => `${path}.replaying`

/** Whether a spill file or an unfinished replay is waiting. */
export const hasSpilled = (path: string): boolean => existsSync(path) || existsSync(replayPathOf(path))

/**
 * The file to replay next: an unfinished replay first, else the spill file renamed aside; `undefined`
 * when neither exists. Call it where no append can run at the same time.
 */
export const claimForReplay = (path: string): Effect.Effect<string | undefined, SpillError> =>
  Effect.tryPromise({
    try: async () => {
      const replayPath = replayPathOf(path)
      if (existsSync(replayPath)) return replayPath
      if (!existsSync(path)) return undefined
      await rename(path, replayPath)
      return replayPath
    },
    catch: (cause) => new SpillError({ path, operation: "rename", cause })
  })

export const removeFile = (path: string): Effect.Effect<void, SpillError> =>
  Effect.tryPromise({
    try: () => rm(path, { force: true }),
    catch: (cause) => new SpillError({ path, operation: "remove", cause })
  })

/** A group of consecutive lines: the records read, and how many lines were not records. */
export interface SpillBatch {
  readonly rows: ReadonlyArray<RequestRecord>
  readonly lines: number
  readonly invalid: number
}

/**
 * Reads the file `size` lines at a time, after skipping `skip` lines, and hands each group to `onBatch`
 * in order; only one group is in memory at a time.
 */
export const forEachBatch = <E, R>(
  path: string,
  { onBatch, size, skip }: {
    /** Rows per batch. */
    readonly size: number
    /** Lines already stored, skipped. */
    readonly skip: number
    readonly onBatch: (batch: SpillBatch) => Effect.Effect<void, E, R>
  }
): Effect.Effect<void, E | SpillError, R> =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const input = createReadStream(path, { encoding: "utf8" })
      return { input, reader: createInterface({ input, crlfDelay: Infinity }) }
    }),
    ({ input, reader }) =>
      Effect.sync(() => {
        reader.close()
        input.destroy()
      })
  ).pipe(
    Effect.flatMap(({ reader }) =>
      Stream.fromAsyncIterable(reader, (cause) => new SpillError({ path, operation: "read", cause })).pipe(
        Stream.drop(skip),
        Stream.grouped(size),
        Stream.runForEach((group) => {
          const rows: Array<RequestRecord> = []
          let invalid = 0
          for (const line of group) {
            if (line.trim() === "") continue
            const row = parseLine(line)
            if (Option.isSome(row)) rows.push(row.value)
            else invalid++
          }
          return onBatch({ rows, lines: group.length, invalid })
        })
      )
    ),
    Effect.scoped
  )
