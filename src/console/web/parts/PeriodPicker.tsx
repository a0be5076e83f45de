/**
 * The spend page's period: a few usual ones as links, and any other as a first and a last UTC day. Both
 * navigate, so the period lives in the address as the log's filters do (back button, reload, a shared
 * link). The form asks for the last day, as people count; the address keeps the API's exclusive end.
 */
import { useState } from "preact/hooks"
import { addDays, lastDayOf, type Period, PRESETS, problemOf, samePeriod } from "./Period.ts"

export const PeriodPicker = (props: {
  readonly period: Period
  readonly now: number
  /** Where a period leads: the page's address with it. */
  readonly hrefOf: (period: Period) => string
  readonly onApply: (period: Period) => void
}) => {
  const [first, setFirst] = useState(props.period.from)
  const [last, setLast] = useState(lastDayOf(props.period))
  const [problem, setProblem] = useState<string | null>(null)

  const apply = (event: Event) => {
    event.preventDefault()
    const period = { from: first, to: last === "" ? "" : addDays(last, 1) }
    const found = problemOf(period)
    setProblem(found)
    if (found === null) props.onApply(period)
  }

  return (
    <div class="period">
      <ul class="presets" aria-label="Usual periods">
        {PRESETS.map((preset) => {
          const period = preset.period(props.now)
          return (
            <li key={preset.label}>
              <a href={props.hrefOf(period)} aria-current={samePeriod(period, props.period) ? "true" : undefined}>
                {preset.label}
              </a>
            </li>
          )
        })}
      </ul>
      <form class="card period-form" onSubmit={apply} aria-label="Period">
        <div>
          <label for="period-first">First day (UTC)</label>
          <input
            id="period-first"
            type="date"
            value={first}
            onInput={(event) => setFirst(event.currentTarget.value)}
            aria-describedby={problem === null ? undefined : "period-problem"}
          />
        </div>
        <div>
          <label for="period-last">Last day (UTC)</label>
          <input
            id="period-last"
            type="date"
            value={last}
            onInput={(event) => setLast(event.currentTarget.value)}
            aria-describedby={problem === null ? undefined : "period-problem"}
          />
        </div>
        <button type="submit" class="primary">Show period</button>
        {problem === null ? null : <p id="period-problem" class="field-problem" role="alert">{problem}</p>}
      </form>
    </div>
  )
}
