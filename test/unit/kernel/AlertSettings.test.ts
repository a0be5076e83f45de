/** Alert settings as stored and checked: the operator's host list, webhook URLs, thresholds kept once and in order. */
import { describe, expect, it } from "vitest"
import { alertsOf, webhookHostAllowed, webhookUrlProblem } from "../../../src/kernel/AlertSettings.ts"
import { isDollarAmount, limitsOf, toMicroDollars } from "../../../src/kernel/Limits.ts"

describe("webhookHostAllowed", () => {
  const allowed = ["hooks.example.com", "*.alerts.example.org"]
  it.each([
    ["https://hooks.example.com/x", true],
    ["https://HOOKS.example.com:8443/x", true],
    ["https://a.alerts.example.org/x", true],
    ["https://a.b.alerts.example.org/x", true],
    ["https://alerts.example.org/x", false],
    ["https://evilalerts.example.org/x", false],
    ["https://hooks.example.com.evil.net/x", false],
    ["http://127.0.0.1/x", false],
    ["http://[::1]/x", false],
    ["not a url", false]
  ])("%s: %s", (url, expected) => {
    expect(webhookHostAllowed(url, allowed)).toBe(expected)
  })

  it("without a list, every host", () => {
    expect(webhookHostAllowed("http://10.0.0.1/x", undefined)).toBe(true)
  })
})

describe("webhookUrlProblem", () => {
  it.each([
    ["https://hooks.example.com/x", undefined],
    ["http://127.0.0.1:8080/x", undefined],
    ["ftp://hooks.example.com/x", "Expected an http or https URL"],
    ["hooks.example.com/x", "Expected an absolute http or https URL"],
    ["https://u:p@hooks.example.com/x", "Expected no user or password in the URL"]
  ])("%s", (url, expected) => {
    expect(webhookUrlProblem(url)).toBe(expected)
  })
})

describe("alertsOf", () => {
  it("reads stored settings: thresholds sorted and kept once, the default when none are usable", () => {
    expect(alertsOf(JSON.stringify({ webhook_url: "https://h.example.com", thresholds: [1, 0.5, 1] }))).toEqual({
      webhook_url: "https://h.example.com",
      thresholds: [0.5, 1]
    })
    expect(alertsOf({ webhook_url: "https://h.example.com", thresholds: [7, "x"] })?.thresholds).toEqual([0.5, 0.8, 1])
  })

  it("anything unusable is no alerts", () => {
    for (const stored of [null, "", "{", "[]", { thresholds: [0.5] }, { webhook_url: "ftp://x" }]) {
      expect(alertsOf(stored)).toBeNull()
    }
  })
})

describe("dollar limits", () => {
  it("are dollars above 0 to the micro-dollar", () => {
    for (const usd of [20, 0.5, 0.000001, 0.1, 12.345678]) expect(isDollarAmount(usd), String(usd)).toBe(true)
    for (const usd of [0, -1, 0.0000001, 1.0000005, Number.NaN, Infinity, 2e9]) {
      expect(isDollarAmount(usd), String(usd)).toBe(false)
    }
    expect(toMicroDollars(0.1) + toMicroDollars(0.2)).toBe(toMicroDollars(0.3))
  })

  it("stored limits keep dollars and drop what is not a dollar amount", () => {
    expect(limitsOf(JSON.stringify({ usd_per_day: 20, usd_per_month: "5", rpm: 3 }))).toMatchObject({
      rpm: 3,
      usd_per_day: 20,
      usd_per_month: null
    })
  })
})
