/**
 * A dollar figure on the page: rounded for reading, exact (six decimals, as the API sums it) in the
 * element's machine-readable value and tooltip. A figure whose requests were all of models without a
 * price reads "unknown": their cost is not zero, it is not known.
 */
import { decimalOf, usd, usdExact } from "./Money.ts"

export const Usd = (props: { readonly micros: number }) => (
  <data value={decimalOf(props.micros)} title={usdExact(props.micros)}>{usd(props.micros)}</data>
)

/** Nothing priced, yet requests of unpriced models: the cost is unknown, not $0. */
export const isUnknown = (micros: number, unpriced: number): boolean => micros === 0 && unpriced > 0

/** A table cell of a cost that may leave out unpriced requests (their count is in a column beside it). */
export const UsdCell = (props: { readonly micros: number; readonly unpriced: number }) => (
  <td class="num">
    {isUnknown(props.micros, props.unpriced) ? <span class="muted">unknown</span> : <Usd micros={props.micros} />}
  </td>
)
