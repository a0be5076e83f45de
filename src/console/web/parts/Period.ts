/**
 * A period of whole UTC days, as the spend page reads it from its address (`?from=2026-11-01&to=2026-12-01`)
 * and sends it to the API: `from` is the first day, `to` the day after the last, which is how the API's
 * `from` (inclusive) and `to` (exclusive) read a bare date, at UTC midnight. UTC because the gateway
 * buckets days in UTC: a period in local days would split the API's days in two.
 */

export interface Period {
  /** `YYYY-MM-DD`, the first day. */
  readonly from: string
  /** `YYYY-MM-DD`, the day after the last. */
  readonly to: string
}

const DAY_MS = 86_400_000
/** A chart of more bars than this is unreadable, and the CSV export stops at 10,000 rows anyway. */
export const MAX_DAYS = 1_000
export const DEFAULT_DAYS = 30

export const dayOf = (time: number): string => new Date(time).toISOString().slice(0, 10)
const timeOf = (day: string): number => Date.parse(`${day}T00:00:00Z`)
export const addDays = (day: string, n: number): string => dayOf(timeOf(day) + n * DAY_MS)

/** A real calendar date written `YYYY-MM-DD` (`2026-02-30` is not). */
export const isDay = (text: string): boolean =>
  /^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(timeOf(text)) && dayOf(timeOf(text)) === text

export const lengthOf = (period: Period): number => Math.round((timeOf(period.to) - timeOf(period.from)) / DAY_MS)

/** The last day in the period (the day before `to`). */
export const lastDayOf = (period: Period): string => addDays(period.to, -1)

/** Every day of the period, in order. */
export const daysOf = (period: Period): ReadonlyArray<string> =>
  Array.from({ length: Math.max(0, lengthOf(period)) }, (_, i) => addDays(period.from, i))

/** The `n` days ending with today (UTC). */
export const lastDays = (n: number, now: number): Period => {
  const tomorrow = addDays(dayOf(now), 1)
  return { from: addDays(tomorrow, -n), to: tomorrow }
}

/** From the first of this month (UTC) to today: later days have no spend yet. */
export const monthToDate = (now: number): Period => ({
  from: `${dayOf(now).slice(0, 7)}-01`,
  to: addDays(dayOf(now), 1)
})

/** The whole previous month (UTC). */
export const lastMonth = (now: number): Period => {
  const first = `${dayOf(now).slice(0, 7)}-01`
  return { from: `${addDays(first, -1).slice(0, 7)}-01`, to: first }
}

export const PRESETS: ReadonlyArray<{ readonly label: string; readonly period: (now: number) => Period }> = [
  { label: "Last 7 days", period: (now) => lastDays(7, now) },
  { label: "Last 30 days", period: (now) => lastDays(DEFAULT_DAYS, now) },
  { label: "Last 90 days", period: (now) => lastDays(90, now) },
  { label: "This month", period: monthToDate },
  { label: "Last month", period: lastMonth }
]

/** Why a period cannot be shown, in words for the page; null when it can. */
export const problemOf = (period: Period): string | null => {
  if (!isDay(period.from) || !isDay(period.to)) return "Choose a first and a last day."
  const length = lengthOf(period)
  if (length < 1) return "The last day comes before the first."
  if (length > MAX_DAYS) return `Choose ${MAX_DAYS.toLocaleString("en-US")} days at most.`
  return null
}

/**
 * The period an address names, or the last 30 days when it names none; `invalid` when it names one
 * the page cannot show (a hand-edited address), which the page says rather than quietly ignoring.
 */
export const periodOf = (
  params: URLSearchParams,
  now: number
): { readonly period: Period; readonly invalid: boolean } => {
  const from = params.get("from")
  const to = params.get("to")
  if (from === null && to === null) return { period: lastDays(DEFAULT_DAYS, now), invalid: false }
  const named = { from: from ?? "", to: to ?? "" }
  return problemOf(named) === null
    ? { period: named, invalid: false }
    : { period: lastDays(DEFAULT_DAYS, now), invalid: true }
}

/** The address's parameters with this period in them, the others kept. */
export const withPeriod = (params: URLSearchParams, period: Period): URLSearchParams => {
  const next = new URLSearchParams(params)
  next.set("from", period.from)
  next.set("to", period.to)
  return next
}

export const samePeriod = (a: Period, b: Period): boolean => a.from === b.from && a.to === b.to

/** `2026-10-29 to 2026-11-27 (30 days, UTC)`. */
export const describePeriod = (period: Period): string => {
  const length = lengthOf(period)
  const last = lastDayOf(period)
  return length === 1
    ? `${period.from} (UTC)`
    : `${period.from} to ${last} (${length.toLocaleString("en-US")} days, UTC)`
}
