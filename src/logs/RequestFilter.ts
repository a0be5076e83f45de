/**
 * What the request log can be narrowed, paged and grouped by, as plain values: the admin routes parse
 * them from a query string (`RequestQueryParams.ts`), `RequestQueries` turns them into SQL.
 */

export type TagMode = "any" | "all"

/** `any`: a request carrying at least one of the tags; `all`: one carrying every tag. */
export interface TagFilter {
  readonly values: readonly [string, ...Array<string>]
  readonly mode: TagMode
}

/** An exact status, a class (`4xx`: `hundreds` 4), or every error (status >= 400). */
export type StatusFilter =
  | { readonly _tag: "Exact"; readonly status: number }
  | { readonly _tag: "Class"; readonly hundreds: number }
  | { readonly _tag: "Error" }

/** Every given part must hold; an empty filter keeps every row of the org. */
export interface RequestFilter {
  readonly tags?: TagFilter
  /** Matches the requested model or the model the provider reported. */
  readonly model?: string
  readonly keyId?: string
  /** A client's session (Claude Code's `X-Claude-Code-Session-Id`). */
  readonly sessionId?: string
  readonly status?: StatusFilter
  /** Inclusive. */
  readonly from?: Date
  /** Exclusive. */
  readonly to?: Date
}

/**
 * Where the previous page ended: the last row's `created_at` (as PostgreSQL's text, to the microsecond,
 * so rows sharing a millisecond are neither skipped nor repeated) and its id.
 */
export interface Cursor {
  readonly createdAt: string
  readonly id: string
}

export interface PageRequest {
  /** 1..MAX_LIMIT. */
  readonly limit: number
  readonly cursor?: Cursor
}

export const DEFAULT_LIMIT = 50
export const MAX_LIMIT = 200

// ---------------------------------------------------------------------------------------------------
// Instants

const INSTANT = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-](\d{2}):?(\d{2})))?$/

const daysIn = (year: number, month: number): number => new Date(Date.UTC(year, month, 0)).getUTCDate()

/**
 * An ISO 8601 date (`2026-01-31`, midnight UTC) or date-time with `Z` or an offset; `undefined` for
 * anything else. A date-time without an offset is refused: it would mean the server's local time.
 * Every field is range-checked here, so PostgreSQL never sees a value it would refuse.
 */
export const parseInstant = (text: string): Date | undefined => {
  const match = INSTANT.exec(text)
  if (match === null) return undefined
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return undefined
  if (match[4] === undefined) return new Date(Date.UTC(year, month - 1, day))
  const [hour, minute, second] = [Number(match[4]), Number(match[5]), Number(match[6] ?? "0")]
  if (hour > 23 || minute > 59 || second > 59) return undefined
  if (match[9] !== undefined && (Number(match[9]) > 23 || Number(match[10]) > 59)) return undefined
  const date = new Date(text)
  return Number.isNaN(date.getTime()) ? undefined : date
}

// ---------------------------------------------------------------------------------------------------
// Cursors: base64url of `["<created_at>", "<id>"]`, opaque to clients

const CURSOR_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/
const BASE64URL = /^[A-Za-z0-9_-]+$/
/** Ids are at most a few hundred characters; a longer cursor is not one of ours. */
export const MAX_CURSOR_LENGTH = 2048

export const encodeCursor = (cursor: Cursor): string =>
  Buffer.from(JSON.stringify([cursor.createdAt, cursor.id])).toString("base64url")

/** The cursor, or `undefined` when the text is not one `encodeCursor` made. */
export const decodeCursor = (text: string): Cursor | undefined => {
  if (text.length > MAX_CURSOR_LENGTH || !BASE64URL.test(text)) return undefined
  let value: unknown
  try {
    value = JSON.parse(Buffer.from(text, "base64url").toString("utf8"))
  } catch {
    return undefined
  }
  if (!Array.isArray(value) || value.length !== 2) return undefined
  const [createdAt, id]: ReadonlyArray<unknown> = value
  if (typeof createdAt !== "string" || typeof id !== "string" || !CURSOR_TIME.test(createdAt)) return undefined
  return parseInstant(createdAt) === undefined ? undefined : { createdAt, id }
}
