/**
 * What the spend page shows for one organization and period, loaded at once. Every sum is the
 * gateway's own (whole micro-dollars, summed in SQL); this module only ranks groups, and gives the
 * days without requests their zero, so nothing here adds dollars up.
 */
import { type AnalyticsGroup, api, call, type LogFilter } from "../Api.ts"
import { microsOf } from "../parts/Money.ts"
import { daysOf, type Period } from "../parts/Period.ts"
import type { SpendDay } from "../parts/SpendChart.tsx"
import type { Figures, Top } from "../parts/TopSpend.tsx"

/** How many keys, models and tags each ranking shows. */
export const TOP = 10

type Ranking = "key" | "model" | "tag"

export interface Spend {
  readonly total: Figures
  /** Requests answered with a status of 400 or more, and what their billed upstream calls cost. */
  readonly failed: Figures
  readonly days: ReadonlyArray<SpendDay>
  readonly top: Readonly<Record<Ranking, Top>>
}

const figuresOf = (group: AnalyticsGroup | undefined): Figures => ({
  group: group?.group ?? null,
  micros: group === undefined ? 0 : microsOf(group.cost_usd),
  requests: group?.requests ?? 0,
  unpriced: group?.unpriced_requests ?? 0
})

/** The API orders groups by requests; the page ranks them by cost, busiest first among equals. */
const topOf = (groups: { readonly data: ReadonlyArray<AnalyticsGroup>; readonly has_more: boolean }): Top => ({
  rows: groups.data.map(figuresOf).sort((a, b) => b.micros - a.micros || b.requests - a.requests).slice(0, TOP),
  partial: groups.has_more
})

export const loadSpend = async (orgId: string, period: Period): Promise<Spend> => {
  const range = { from: period.from, to: period.to } satisfies LogFilter
  const [total, failed, perDay, keys, models, tags] = await Promise.all([
    api.analytics(orgId, "none", range),
    // the API filters by status itself: status >= 400, whatever the row's cost
    api.analytics(orgId, "none", { ...range, status: "error" }),
    call("requests", "spend", { params: { org_id: orgId }, query: { group_by: "none", ...range } }),
    api.analytics(orgId, "key", range),
    api.analytics(orgId, "model", range),
    api.analytics(orgId, "tag", range)
  ])
  const byDay = new Map(perDay.data.map((row) => [row.day, row]))
  return {
    total: figuresOf(total.data[0]),
    failed: figuresOf(failed.data[0]),
    days: daysOf(period).map((day) => {
      const row = byDay.get(day)
      return {
        day,
        micros: row === undefined ? 0 : microsOf(row.cost_usd),
        requests: row?.requests ?? 0,
        unpriced: row?.unpriced_requests ?? 0
      }
    }),
    top: { key: topOf(keys), model: topOf(models), tag: topOf(tags) }
  }
}
