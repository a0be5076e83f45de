/** How times and numbers read on the page: local time to the minute (ISO in the tooltip), grouped digits. */

const pad = (n: number) => String(n).padStart(2, "0")

export const time = (iso: string | null, never = "never"): string => {
  if (iso === null) return never
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return iso
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`
}

/** The end of a `<input type=date>` day in local time, as the API's ISO instant (an expiry's last day). */
export const endOfDay = (date: string): string => new Date(`${date}T23:59:59.999`).toISOString()

/** To the second, for a session's timeline, whose requests come seconds apart. */
export const timeToSecond = (iso: string): string => {
  const d = new Date(iso)
  return Number.isNaN(d.getTime()) ? iso : `${time(iso)}:${pad(d.getSeconds())}`
}

/** A time between two moments in its two largest units: `350 ms`, `45 s`, `3 min 20 s`, `2 h 5 min`. */
export const duration = (ms: number): string => {
  if (ms < 1_000) return `${Math.max(0, Math.round(ms))} ms`
  const seconds = Math.round(ms / 1_000)
  const [minutes, hours, days] = [Math.floor(seconds / 60), Math.floor(seconds / 3_600), Math.floor(seconds / 86_400)]
  const two = (big: number, bigUnit: string, small: number, smallUnit: string) =>
    small === 0 ? `${big} ${bigUnit}` : `${big} ${bigUnit} ${small} ${smallUnit}`
  if (seconds < 60) return `${seconds} s`
  if (minutes < 60) return two(minutes, "min", seconds % 60, "s")
  if (hours < 24) return two(hours, "h", minutes % 60, "min")
  return two(days, "d", hours % 24, "h")
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
