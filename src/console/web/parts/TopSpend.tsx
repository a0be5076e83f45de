/**
 * One ranking of the spend page: the keys, models or tags that cost most in the period, with their
 * requests and how many of those were of models without a price (which the cost leaves out).
 */
import type { ComponentChildren } from "preact"
import { count } from "./Format.ts"
import { Empty } from "./Notice.tsx"
import { TableFrame } from "./TableFrame.tsx"
import { UsdCell } from "./UsdFigure.tsx"

/** One group's money and requests: a key, model or tag, or everything when `group` is null. */
export interface Figures {
  readonly group: string | null
  readonly micros: number
  readonly requests: number
  /** Answered completions of models without a price: in `requests`, not in `micros`. */
  readonly unpriced: number
}

export interface Top {
  /** Most spent first, ten at most (`TOP` in SpendData.ts). */
  readonly rows: ReadonlyArray<Figures>
  /** The API stopped at its 1,000 busiest groups: a quieter, costlier one may be missing. */
  readonly partial: boolean
}

export const TopSpend = (props: {
  readonly title: string
  /** The first column's heading: Key, Model, Tag. */
  readonly column: string
  readonly top: Top | undefined
  readonly nameOf: (group: string | null) => ComponentChildren
  readonly note?: string
}) => {
  const rows = props.top?.rows
  return (
    <div>
      <h2>{props.title}</h2>
      {props.note === undefined ? null : <p class="hint">{props.note}</p>}
      {rows === undefined ?
        null :
        rows.length === 0 ?
        <Empty>No requests in this period.</Empty> :
        (
          <TableFrame label={props.title}>
            <table>
              <thead>
                <tr>
                  <th scope="col">{props.column}</th>
                  <th scope="col" class="num">Cost</th>
                  <th scope="col" class="num">Requests</th>
                  <th scope="col" class="num">Unpriced</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row: Figures) => (
                  <tr key={row.group ?? ""}>
                    <th scope="row">{props.nameOf(row.group)}</th>
                    <UsdCell micros={row.micros} unpriced={row.unpriced} />
                    <td class="num">{count(row.requests)}</td>
                    <td class="num">{count(row.unpriced)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {props.top?.partial
              ? (
                <p class="hint">
                  Ranked among the 1,000 busiest only: a costlier one with fewer requests may be missing. Shorten the
                  period to rank them all.
                </p>
              )
              : null}
          </TableFrame>
        )}
    </div>
  )
}
