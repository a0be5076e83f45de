/** How times and numbers read on the page: local time to the minute (ISO in the tooltip), grouped digits. */

const pad = (n: number) => String(n).padStart(2, "0")

export const time = (iso: string | null, never = "never"): string => {
  if (iso === null) return never
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return iso
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`
}

export const count = (n: number): string => n.toLocaleString("en-US")

export const ms = (n: number | null): string => (n === null ? "–" : `${count(Math.round(n))} ms`)

export const percent = (part: number, whole: number): string =>
  whole === 0 ? "–" : `${((100 * part) / whole).toFixed(part === whole || part === 0 ? 0 : 1)}%`

/** A `datetime-local` input's value (local time, no zone) as an ISO instant; "" stays "". */
export const localToIso = (value: string): string => (value === "" ? "" : new Date(value).toISOString())

/** An ISO instant as a `datetime-local` input's value. */
export const isoToLocal = (iso: string): string => {
  const d = new Date(iso)
  if (iso === "" || Number.isNaN(d.getTime())) return ""
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`
}
