/**
 * Values between the code and either engine. PostgreSQL's client returns `Date`, `boolean` and parsed
 * JSONB; SQLite keeps times as ISO 8601 text, booleans as 0/1 and JSON as text. Rows are typed with
 * both, and these turn them into what the API returns.
 */

/**
 * A time as the store writes it in text: ISO 8601 UTC with six fractional digits, PostgreSQL's
 * precision. SQLite's columns hold exactly this form, so times compare as text and a log cursor (which
 * carries microseconds) is a stored value; PostgreSQL parses it as it is.
 */
export const toStoredTime = (date: Date): string => `${date.toISOString().slice(0, -1)}000Z`

/** A stored time (a `Date`, or ISO 8601 text), as an ISO 8601 UTC string. */
export const toIso = (value: Date | string): string => toDate(value).toISOString()

export const toIsoOrNull = (value: Date | string | null): string | null => value === null ? null : toIso(value)

export const toDate = (value: Date | string): Date => value instanceof Date ? value : new Date(value)

export const toDateOrNull = (value: Date | string | null): Date | null => value === null ? null : toDate(value)

/** A stored boolean (`true`, or SQLite's 1). */
export const toBool = (value: boolean | number): boolean => value === true || value === 1

/** A stored JSON value: parsed already (JSONB), or JSON text (SQLite). */
export const fromJson = <A>(value: A | string): A => typeof value === "string" ? JSON.parse(value) as A : value
