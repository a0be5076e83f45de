/**
 * Rate limits and token budgets of a key or an organization: requests and tokens per minute, tokens
 * per calendar day and month (UTC). `null`: no limit of that kind. Stored as JSON on the key's and the
 * org's row; an edit changes the kinds it names and keeps the others.
 */

export const LIMIT_NAMES = ["rpm", "tpm", "tokens_per_day", "tokens_per_month"] as const
export type LimitName = typeof LIMIT_NAMES[number]

export type Limits = { readonly [K in LimitName]: number | null }

/** An edit: the kinds present change (`null` removes one); `null` for the whole removes every kind. */
export type LimitsChange = { readonly [K in LimitName]?: number | null } | null

export const NO_LIMITS: Limits = { rpm: null, tpm: null, tokens_per_day: null, tokens_per_month: null }

const positive = (value: unknown): number | null =>
  typeof value === "number" && Number.isSafeInteger(value) && value > 0 ? value : null

/** Limits as stored (JSON text, a parsed object, or nothing); anything unusable is no limit. */
export const limitsOf = (stored: unknown): Limits => {
  let value = stored
  if (typeof value === "string") {
    try {
      value = JSON.parse(value)
    } catch {
      return NO_LIMITS
    }
  }
  if (typeof value !== "object" || value === null) return NO_LIMITS
  const record = value as Record<string, unknown>
  return {
    rpm: positive(record["rpm"]),
    tpm: positive(record["tpm"]),
    tokens_per_day: positive(record["tokens_per_day"]),
    tokens_per_month: positive(record["tokens_per_month"])
  }
}

export const hasLimits = (limits: Limits): boolean =>
  limits.rpm !== null || limits.tpm !== null || limits.tokens_per_day !== null || limits.tokens_per_month !== null

/** `current` with `change` applied. */
export const applyLimits = (current: Limits, change: LimitsChange): Limits => {
  if (change === null) return NO_LIMITS
  return {
    rpm: change.rpm === undefined ? current.rpm : change.rpm,
    tpm: change.tpm === undefined ? current.tpm : change.tpm,
    tokens_per_day: change.tokens_per_day === undefined ? current.tokens_per_day : change.tokens_per_day,
    tokens_per_month: change.tokens_per_month === undefined ? current.tokens_per_month : change.tokens_per_month
  }
}

/** What is stored: null when there is no limit at all. */
export const storedLimits = (limits: Limits): string | null => hasLimits(limits) ? JSON.stringify(limits) : null
