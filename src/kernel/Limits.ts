/**
 * Rate limits and budgets of a key or an organization: requests and tokens per minute, tokens and
 * dollars per calendar day and month (UTC). `null`: no limit of that kind. Stored as JSON on the key's
 * and the org's row; an edit changes the kinds it names and keeps the others. Token kinds are whole
 * numbers; dollar kinds are dollars to the micro-dollar (the unit costs are counted in).
 */

export const LIMIT_NAMES = [
  "rpm",
  "tpm",
  "tokens_per_day",
  "tokens_per_month",
  "usd_per_day",
  "usd_per_month"
] as const
export type LimitName = typeof LIMIT_NAMES[number]

/** The budgets of a period: checked against what the period used so far. */
export const BUDGET_NAMES = ["tokens_per_day", "tokens_per_month", "usd_per_day", "usd_per_month"] as const
export type BudgetName = typeof BUDGET_NAMES[number]

export const isBudget = (name: LimitName): name is BudgetName => name !== "rpm" && name !== "tpm"

export const isDollarLimit = (name: LimitName): name is "usd_per_day" | "usd_per_month" =>
  name === "usd_per_day" || name === "usd_per_month"

/** Dollars as whole micro-dollars, the unit a cost is counted in (`prices/Cost.ts`). */
export const toMicroDollars = (usd: number): number => Math.round(usd * 1_000_000)

/** Whether `usd` is a dollar limit: above 0 and exact to the micro-dollar. */
export const isDollarAmount = (usd: number): boolean =>
  Number.isFinite(usd) && usd > 0 && usd <= 1e9 && Math.abs(usd * 1_000_000 - toMicroDollars(usd)) < 1e-6

export type Limits = { readonly [K in LimitName]: number | null }

/** An edit: the kinds present change (`null` removes one); `null` for the whole removes every kind. */
export type LimitsChange = { readonly [K in LimitName]?: number | null } | null

export const NO_LIMITS: Limits = {
  rpm: null,
  tpm: null,
  tokens_per_day: null,
  tokens_per_month: null,
  usd_per_day: null,
  usd_per_month: null
}

const positive = (value: unknown): number | null =>
  typeof value === "number" && Number.isSafeInteger(value) && value > 0 ? value : null

const dollars = (value: unknown): number | null => typeof value === "number" && isDollarAmount(value) ? value : null

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
    tokens_per_month: positive(record["tokens_per_month"]),
    usd_per_day: dollars(record["usd_per_day"]),
    usd_per_month: dollars(record["usd_per_month"])
  }
}

export const hasLimits = (limits: Limits): boolean => LIMIT_NAMES.some((name) => limits[name] !== null)

/** `current` with `change` applied. */
export const applyLimits = (current: Limits, change: LimitsChange): Limits => {
  if (change === null) return NO_LIMITS
  const next: { -readonly [K in LimitName]: number | null } = { ...current }
  for (const name of LIMIT_NAMES) {
    const value = change[name]
    if (value !== undefined) next[name] = value
  }
  return next
}

/** What is stored: null when there is no limit at all. */
export const storedLimits = (limits: Limits): string | null => hasLimits(limits) ? JSON.stringify(limits) : null
