/**
 * A session's money as the sessions pages show it, from the gateway's own sums (dollars exact to six
 * decimals, read as whole micro-dollars; nothing is added up here). What it cost leaves out requests
 * of models without a price, so the figure says how many it left out; what compression saved is net
 * of prompt caching and may be negative.
 */
import { count } from "./Format.ts"
import { microsOf } from "./Money.ts"
import { isUnknown, Usd } from "./UsdFigure.tsx"

export const SessionCost = (props: { readonly usd: number; readonly unpriced: number }) => {
  const micros = microsOf(props.usd)
  if (isUnknown(micros, props.unpriced)) return <span class="muted">unknown</span>
  return (
    <>
      <Usd micros={micros} />
      {props.unpriced === 0 ? null : <span class="muted">{` + ${count(props.unpriced)} unpriced`}</span>}
    </>
  )
}

/** Nothing compressed: a dash, not `$0.00`, which would read as a compression that saved nothing. */
export const SessionSaved = (props: { readonly usd: number; readonly tokens: number }) => {
  const micros = microsOf(props.usd)
  return props.tokens === 0 && micros === 0 ? "–" : <Usd micros={micros} />
}
