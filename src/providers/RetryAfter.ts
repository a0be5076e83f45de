/**
 * How long an upstream asked to be left alone: `retry-after-ms` (OpenAI's, milliseconds), else
 * `Retry-After` as delay-seconds or an HTTP date (RFC 9110 10.2.3). Put on the `UpstreamStatus` where
 * an adapter reads a non-2xx answer, so the failover can honour it.
 */
import { changedStatus, type UpstreamStatus } from "./ProviderError.ts"

const SECONDS = /^\d+(\.\d+)?$/

/** Milliseconds from `now` the headers ask to wait; undefined when they say nothing usable. */
export const retryAfterMs = (headers: Readonly<Record<string, string>>, now: number): number | undefined => {
  const ms = headers["retry-after-ms"]?.trim()
  if (ms !== undefined && SECONDS.test(ms)) return Number(ms)
  const value = headers["retry-after"]?.trim()
  if (value === undefined || value === "") return undefined
  if (SECONDS.test(value)) return Number(value) * 1000
  // an HTTP date has a weekday and a month name; Date.parse reads "-3" as a year
  const date = /[a-z]/i.test(value) ? Date.parse(value) : Number.NaN
  // a date in the past asks for no wait at all
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/** `reason` with the wait its response's headers asked for, when they asked for one. */
export const withRetryAfter = (reason: UpstreamStatus, headers: Readonly<Record<string, string>>): UpstreamStatus => {
  const wait = retryAfterMs(headers, Date.now())
  if (wait === undefined) return reason
  return changedStatus(reason, { retryAfterMs: wait })
}
