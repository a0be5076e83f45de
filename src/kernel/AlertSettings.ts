/**
 * An organization's budget alerts: where to post an event when a key's or the org's spend crosses a
 * share of a dollar budget, and which shares. Stored as JSON on the org's row; `null`: no alerts.
 *
 * The operator may keep webhooks off hosts an org admin should not reach from inside the gateway's
 * network (`GATEWAY_ALERT_WEBHOOK_HOSTS`): a list of host names, `*.example.com` for a domain's hosts.
 */

export interface AlertSettings {
  readonly webhook_url: string
  /** Shares of a dollar budget, ascending, each in (0, 1]. */
  readonly thresholds: ReadonlyArray<number>
}

export const DEFAULT_THRESHOLDS: ReadonlyArray<number> = [0.5, 0.8, 1]

export const MAX_THRESHOLDS = 10

export const isThreshold = (value: unknown): value is number =>
  typeof value === "number" && Number.isFinite(value) && value > 0 && value <= 1

/** Thresholds as kept: each once, ascending. */
export const normalThresholds = (thresholds: ReadonlyArray<number>): ReadonlyArray<number> =>
  [...new Set(thresholds)].sort((a, b) => a - b)

/** A webhook URL as an alert may use it: http or https, with a host and no credentials in it. */
export const webhookUrlProblem = (text: string): string | undefined => {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return "Expected an absolute http or https URL"
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "Expected an http or https URL"
  if (url.username !== "" || url.password !== "") return "Expected no user or password in the URL"
  return undefined
}

/** Whether the operator's list lets a webhook reach `url`'s host; no list: every host. */
export const webhookHostAllowed = (text: string, allowed: ReadonlyArray<string> | undefined): boolean => {
  if (allowed === undefined) return true
  let host: string
  try {
    host = new URL(text).hostname.toLowerCase().replace(/^\[|\]$/g, "")
  } catch {
    return false
  }
  return allowed.some((entry) => {
    const rule = entry.trim().toLowerCase()
    return rule.startsWith("*.") ? host.endsWith(rule.slice(1)) && host.length > rule.length - 1 : host === rule
  })
}

/** The settings as stored (JSON text, a parsed object, or nothing); anything unusable is no alerts. */
export const alertsOf = (stored: unknown): AlertSettings | null => {
  let value = stored
  if (typeof value === "string") {
    try {
      value = JSON.parse(value)
    } catch {
      return null
    }
  }
  if (typeof value !== "object" || value === null) return null
  const record = value as Record<string, unknown>
  const url = record["webhook_url"]
  if (typeof url !== "string" || webhookUrlProblem(url) !== undefined) return null
  const thresholds = Array.isArray(record["thresholds"]) ? record["thresholds"].filter(isThreshold) : []
  return {
    webhook_url: url,
    thresholds: thresholds.length === 0 ? DEFAULT_THRESHOLDS : normalThresholds(thresholds)
  }
}
