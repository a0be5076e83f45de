/**
 * A page over a period of UTC days kept in its address (the spend and sessions pages): the period the
 * address names, read against "today" once per visit so the default period does not move under the
 * reader at midnight, and the controls that change it, with a note when the address named a period the
 * page cannot show.
 */
import { useState } from "preact/hooks"
import { href, navigate, type Page, type Route } from "../Route.ts"
import { Notice } from "./Notice.tsx"
import { DEFAULT_DAYS, type Period, periodOf, withPeriod } from "./Period.ts"
import { PeriodPicker } from "./PeriodPicker.tsx"

export interface RoutePeriod {
  readonly now: number
  readonly period: Period
  /** The address named a period the page cannot show; the default is shown. */
  readonly invalid: boolean
  /** The page's address with `next` as its period. */
  readonly hrefOf: (next: Period) => string
}

export const useRoutePeriod = (page: Page, orgId: string, route: Route): RoutePeriod => {
  const [now] = useState(() => Date.now())
  const { invalid, period } = periodOf(route.params, now)
  return { now, period, invalid, hrefOf: (next) => href(page, orgId, { params: withPeriod(route.params, next) }) }
}

export const PeriodControls = (props: { readonly at: RoutePeriod }) => {
  const { hrefOf, invalid, now, period } = props.at
  return (
    <>
      <PeriodPicker
        key={`${period.from}/${period.to}`}
        period={period}
        now={now}
        hrefOf={hrefOf}
        onApply={(next) => navigate(hrefOf(next))}
      />
      {invalid
        ? (
          <Notice
            message={{
              kind: "info",
              text: `The address names a period this page cannot show: the last ${DEFAULT_DAYS} days are shown.`
            }}
          />
        )
        : null}
    </>
  )
}
