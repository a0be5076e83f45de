/**
 * One ranking of the spend page: the keys, models or tags that cost most in the period, with their
 * requests and how many of those were of models without a price (which the cost leaves out).
 */
import type { ComponentChildren } from "preact"
import { DataTable, num } from "./DataTable.tsx"
import { count } from "./Format.ts"
import { Empty } from "./Notice.tsx"
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
          <DataTable
            label={props.title}
            columns={[props.column, num("Cost"), num("Requests"), num("Unpriced")]}
            after={props.top?.partial
              ? (
                <p class="hint">
                  Ranked among the 1,000 busiest only: a costlier one with fewer requests may be missing. Shorten the
                  period to rank them all.
                </p>
              )
              : null}
          >
            {rows.map((row: Figures) => (
              <tr key={row.group ?? ""}>
                <th scope="row">{props.nameOf(row.group)}</th>
                <UsdCell micros={row.micros} unpriced={row.unpriced} />
                <td class="num">{count(row.requests)}</td>
                <td class="num">{count(row.unpriced)}</td>
              </tr>
            ))}
          </DataTable>
        )}
    </div>
  )
}
