/**
 * Dollar figures as the console shows them. The gateway sums costs itself, in whole micro-dollars, and
 * sends each sum as dollars exact to six decimals; the page never adds dollar figures (a float sum
 * drifts), it only rounds one figure at a time for reading, in integer micro-dollars.
 */

const MICROS_PER_DOLLAR = 1_000_000

/**
 * A dollar figure from the API in whole micro-dollars: a JSON number (`0.00125`) or a six-decimal text
 * (`"0.001250"`), so the page reads either without a change. NaN for anything else.
 */
export const microsOf = (usd: number | string): number => {
  // a six-decimal figure times a million is within a rounding error of its integer: round it away
  if (typeof usd === "number") return Number.isFinite(usd) ? Math.round(usd * MICROS_PER_DOLLAR) : Number.NaN
  const match = /^(-?)(\d+)(?:\.(\d{1,6}))?$/.exec(usd.trim())
  if (match === null) return Number.NaN
  const micros = Number(match[2]) * MICROS_PER_DOLLAR + Number((match[3] ?? "").padEnd(6, "0"))
  return match[1] === "-" ? -micros : micros
}

const grouped = (n: number) => n.toLocaleString("en-US")

/**
 * For reading: cents from a dollar up (`$1,234.57`); below a dollar four decimals at most, trailing
 * zeros dropped but never below cents (`$0.25`, `$0.004`, `$0.0013`), so a small spend never reads as
 * `$0.00`; `<$0.0001` below that. Halves round up.
 */
export const usd = (micros: number): string => {
  if (Number.isNaN(micros)) return "–"
  if (micros < 0) return `-${usd(-micros)}`
  if (micros === 0) return "$0.00"
  if (micros >= MICROS_PER_DOLLAR) {
    const cents = Math.floor((micros + 5_000) / 10_000)
    return `$${grouped(Math.floor(cents / 100))}.${String(cents % 100).padStart(2, "0")}`
  }
  const tenThousandths = Math.floor((micros + 50) / 100)
  if (tenThousandths === 0) return "<$0.0001"
  const whole = Math.floor(tenThousandths / 10_000)
  const fraction = String(tenThousandths % 10_000).padStart(4, "0").replace(/0+$/, "").padEnd(2, "0")
  return `$${whole}.${fraction}`
}

/** Exact, without the dollar sign, as the API and the CSV export write it: `0.001250`. */
export const decimalOf = (micros: number): string => {
  if (Number.isNaN(micros)) return ""
  const abs = Math.abs(micros)
  return `${micros < 0 ? "-" : ""}${Math.floor(abs / MICROS_PER_DOLLAR)}.${
    String(abs % MICROS_PER_DOLLAR).padStart(6, "0")
  }`
}

/** Exact, for a tooltip: `$0.001250`. */
export const usdExact = (micros: number): string =>
  Number.isNaN(micros) ? "–" : micros < 0 ? `-$${decimalOf(-micros)}` : `$${decimalOf(micros)}`
