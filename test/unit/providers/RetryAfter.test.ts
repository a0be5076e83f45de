/** `Retry-After` as seconds or an HTTP date, and OpenAI's `retry-after-ms`, read into milliseconds. */
import { describe, expect, it } from "vitest"
import { UpstreamStatus } from "../../../src/providers/ProviderError.ts"
import { retryAfterMs, withRetryAfter } from "../../../src/providers/RetryAfter.ts"

const NOW = Date.parse("2026-11-26T10:00:00Z")

describe("retryAfterMs", () => {
  const cases: ReadonlyArray<readonly [Record<string, string>, number | undefined]> = [
    [{}, undefined],
    [{ "retry-after": "0" }, 0],
    [{ "retry-after": "7" }, 7_000],
    [{ "retry-after": " 12 " }, 12_000],
    [{ "retry-after": "1.5" }, 1_500],
    [{ "retry-after": "Thu, 26 Nov 2026 10:00:30 GMT" }, 30_000],
    // a date already past asks for no wait
    [{ "retry-after": "Thu, 26 Nov 2026 09:59:00 GMT" }, 0],
    [{ "retry-after": "soon" }, undefined],
    [{ "retry-after": "-3" }, undefined],
    [{ "retry-after": "" }, undefined],
    [{ "retry-after-ms": "250" }, 250],
    // OpenAI sends both: the finer one wins
    [{ "retry-after-ms": "250", "retry-after": "1" }, 250],
    [{ "retry-after-ms": "x", "retry-after": "1" }, 1_000]
  ]
  for (const [headers, expected] of cases) {
    it(`${JSON.stringify(headers)} → ${expected}`, () => expect(retryAfterMs(headers, NOW)).toBe(expected))
  }
})

describe("withRetryAfter", () => {
  const reason = new UpstreamStatus({
    status: 429,
    message: "slow down",
    type: "requests",
    code: "rate_limit_exceeded",
    param: null
  })

  it("keeps every field and adds the wait", () => {
    const out = withRetryAfter(reason, { "retry-after": "3" })
    expect([out.status, out.message, out.type, out.code, out.param, out.retryAfterMs]).toEqual([
      429,
      "slow down",
      "requests",
      "rate_limit_exceeded",
      null,
      3_000
    ])
    expect(out.next).toBe("retry")
  })

  it("is the same reason when the headers ask for nothing", () => {
    expect(withRetryAfter(reason, {})).toBe(reason)
  })
})

describe("what follows each status", () => {
  const cases: ReadonlyArray<readonly [number, string]> = [
    [400, "client"],
    [401, "failover"],
    [403, "failover"],
    [404, "client"],
    [408, "failover"],
    [409, "client"],
    [413, "client"],
    [422, "client"],
    [429, "retry"],
    [500, "retry"],
    [501, "failover"],
    [502, "retry"],
    [503, "retry"],
    [504, "retry"],
    [505, "failover"],
    [529, "retry"]
  ]
  for (const [status, next] of cases) {
    it(`${status} → ${next}`, () => expect(new UpstreamStatus({ status, message: "" }).next).toBe(next))
  }
})
