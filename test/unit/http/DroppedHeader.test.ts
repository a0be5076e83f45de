/**
 * `x-svc-dropped-fields` stays a valid, bounded header whatever field names the client sent (a 100,000
 * character key once made the answer's headers overflow the client's limit), and a request Node cannot
 * parse (headers over 16 KiB) is answered in JSON both error shapes read.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { droppedHeader } from "../../../src/http/Pipeline.ts"
import { startGateway, type TestGateway } from "../../utils/TestGateway.ts"

describe("droppedHeader", () => {
  it("lists short names as they are", () =>
    expect(droppedHeader(["seed", "tools[0].cache_control"])).toBe("seed, tools[0].cache_control"))

  it("cuts a long name, and the whole list past 1 KiB with a count of the rest", () => {
    expect(droppedHeader(["k".repeat(100_000)])).toBe(`${"k".repeat(80)}...`)
    const many = Array.from({ length: 500 }, (_, i) => `field_${i}`)
    const header = droppedHeader(many)
    expect(header.length).toBeLessThanOrEqual(1_024 + 20)
    expect(header).toMatch(/^field_0, field_1, .*, \(\d+ more\)$/)
  })

  it("shows names that are not visible ASCII escaped, so the header stays valid", () => {
    const header = droppedHeader(["a\u0000b", "caf\u00e9", "line\nbreak"])
    expect(header).toMatch(/^[\x20-\x7e]*$/)
    expect(header).toBe("a\\u0000b, caf?, line\\nbreak")
  })
})

describe("a request Node cannot parse", () => {
  let gw: TestGateway
  beforeAll(async () => {
    gw = await startGateway()
  })
  afterAll(async () => {
    await gw?.close()
  })

  it("headers over 16 KiB: 431 in JSON that OpenAI's and Anthropic's clients both read", async () => {
    const response = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-svc-tags": "t".repeat(20_000) },
      body: "{}"
    })
    expect(response.status).toBe(431)
    const body = await response.json() as { type: string; error: { type: string; message: string; code: string } }
    expect(body.type).toBe("error")
    expect(body.error).toMatchObject({ type: "invalid_request_error", code: "request_header_fields_too_large" })
    expect(body.error.message).toContain("16 KiB")
  })
})
