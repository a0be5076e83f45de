/**
 * What an organization spent in a period of UTC days (the last 30 by default): the total in dollars,
 * its requests, those of models without a price (whose cost is unknown, so never shown as $0), what
 * failed requests still cost, spend per day, the costliest keys, models and tags, a CSV export, and
 * the org's budget alerts.
 */
import { api, type Org } from "../Api.ts"
import { BudgetAlertsPanel } from "../parts/BudgetAlerts.tsx"
import { count } from "../parts/Format.ts"
import { Notice } from "../parts/Notice.tsx"
import { describePeriod } from "../parts/Period.ts"
import { PeriodControls, useRoutePeriod } from "../parts/RoutePeriod.tsx"
import { SpendChart } from "../parts/SpendChart.tsx"
import { SpendCsv } from "../parts/SpendCsv.tsx"
import { TopSpend } from "../parts/TopSpend.tsx"
import { isUnknown, Usd } from "../parts/UsdFigure.tsx"
import { useLoad } from "../parts/useLoad.ts"
import type { Route } from "../Route.ts"
import { loadSpend } from "./SpendData.ts"

export const SpendPage = (
  props: { readonly org: Org; readonly route: Route; readonly reloadOrgs: () => Promise<void> }
) => {
  const orgId = props.org.id
  const at = useRoutePeriod("spend", orgId, props.route)
  const period = at.period
  const keys = useLoad(() => api.keys(orgId), [orgId])
  const spend = useLoad(() => loadSpend(orgId, period), [orgId, period.from, period.to])

  const data = spend.data
  const total = data?.total
  const failed = data?.failed
  const keyName = (id: string | null) => {
    if (id === null) return "(no key)"
    const key = (keys.data ?? []).find((k) => k.id === id)
    return key === undefined ? <code>{id}</code> : `${key.name} (${key.prefix}…)`
  }

  return (
    <section>
      <h1 tabIndex={-1}>
        Spend <span class="sub">of {props.org.name}</span>
      </h1>
      <PeriodControls at={at} />
      {spend.error === null ? null : <Notice message={{ kind: "error", text: spend.error }} />}
      {data === undefined && spend.loading ? <p aria-busy="true">Loading…</p> : null}

      <h2 id="totals-title">{describePeriod(period)}</h2>
      <ul class="totals" aria-labelledby="totals-title" aria-busy={spend.loading}>
        <li data-figure="total">
          <span class="figure">
            {total === undefined ? "–" : isUnknown(total.micros, total.unpriced) ?
              "unknown" :
              <Usd micros={total.micros} />}
          </span>{" "}
          spent
        </li>
        <li data-figure="requests">
          <span class="figure">{total === undefined ? "–" : count(total.requests)}</span> requests
        </li>
        <li data-figure="unpriced">
          <span class="figure">{total === undefined ? "–" : count(total.unpriced)}</span> unpriced requests{" "}
          <span class="muted">(of models without a known price: their cost is unknown, not in the spend)</span>
        </li>
        <li data-figure="failed">
          <span class="figure">{failed === undefined ? "–" : <Usd micros={failed.micros} />}</span>{" "}
          spent on failed requests{" "}
          <span class="muted">
            ({failed === undefined ? "–" : count(failed.requests)}{" "}
            answered with a status of 400 or above; already in the spend)
          </span>
        </li>
      </ul>

      <h2>Per day</h2>
      {data === undefined ? null : <SpendChart days={data.days} />}

      <SpendCsv orgId={orgId} period={period} />

      <div class="top-spend">
        <TopSpend title="Top keys" column="Key" top={data?.top.key} nameOf={keyName} />
        <TopSpend
          title="Top models"
          column="Model"
          top={data?.top.model}
          nameOf={(model) => model ?? "(none)"}
        />
        <TopSpend
          title="Top tags"
          column="Tag"
          top={data?.top.tag}
          nameOf={(tag) => tag ?? "(untagged)"}
          note="A request with several tags counts under each of them, so the tags' costs can add up to more than the spend."
        />
      </div>

      <BudgetAlertsPanel key={props.org.id} org={props.org} reload={props.reloadOrgs} />
    </section>
  )
}
