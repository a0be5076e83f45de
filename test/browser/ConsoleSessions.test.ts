/**
 * The console's sessions pages in Chromium, over real priced requests: Claude Code's session header
 * names one session (two answered requests and a failed one), Codex's another. The list shows each
 * with its client's name, its requests, errors, tokens, cache hits and the gateway's cost; a session
 * shows its sums and its requests in the order they came, each linking to the request's detail.
 */
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  completion,
  fakeGatewayEnv,
  type FakeUpstream,
  reply,
  startFakeUpstream,
  usage
} from "../utils/FakeUpstream.ts"
import { postChat } from "../utils/TestGateway.ts"
import { type ConsoleUnderTest, inPage, startConsole } from "./ConsoleBrowser.ts"

const PRICE = { "*": { input: 2, cached_input: 0.5, output: 8 } }
const CLAUDE = {
  "x-claude-code-session-id": "s-1",
  "user-agent": "claude-cli/2.1.328 (external, cli)",
  "x-svc-tags": "developer:ana@example.com"
}
const CODEX = { "session-id": "s-2", "user-agent": "codex_exec/0.169.0" }

describe("console: the sessions pages, in Chromium", () => {
  let upstream: FakeUpstream
  let c: ConsoleUnderTest
  let orgId: string
  let key: string

  beforeAll(async () => {
    upstream = await startFakeUpstream((request) => {
      switch (request.body.model) {
        case "broken":
          return reply.error(500, "the fake upstream is down", { type: "server_error" })
        // 3,000 x 2 + 50 x 8 micro-dollars: $0.0064
        case "big":
          return reply.json(completion({ content: "ok", usage: usage(3_000, 50) }))
        // 600 x 2 + 400 x 0.5 + 100 x 8 micro-dollars: $0.0022
        default:
          return reply.json(completion({ content: "ok", usage: usage(1_000, 100, 400) }))
      }
    })
    const base = { adapter: "openai-compatible", base_url: `${upstream.url}/v1`, api_key_env: "FAKE_KEY" }
    c = await startConsole(fakeGatewayEnv(upstream, {
      providers: { fake: { ...base, prices: PRICE } },
      env: { GATEWAY_LOG_FLUSH_INTERVAL: "20 millis" }
    }))
    ;({ orgId, key } = await c.gw.newKey())

    const ask = async (model: string, headers: Record<string, string>) => {
      const response = await postChat(c.gw.url, { model, messages: [{ role: "user", content: "hi" }] }, {
        key,
        headers
      })
      await response.text()
      return response.status
    }
    expect(await ask("fake/big", CODEX)).toBe(200)
    expect(await ask("fake/coder", CLAUDE)).toBe(200)
    expect(await ask("fake/haiku", CLAUDE)).toBe(200)
    expect(await ask("fake/broken", CLAUDE)).toBeGreaterThanOrEqual(500)
  })
  afterAll(async () => {
    await c?.close()
    await upstream?.close()
  })

  /** The log is written in batches, off the request: waits until the API sums every request. */
  const logged = () =>
    expect.poll(async () => {
      const listed = await c.gw.admin("GET", `/orgs/${orgId}/sessions`)
      return listed.json.data.map((s: { session_id: string; requests: number }) => `${s.session_id}:${s.requests}`)
    }, { timeout: 10_000 }).toEqual(["s-1:3", "s-2:1"])

  const cells = (page: Page, sessionId: string) =>
    page.locator(`tr[data-session-id='${sessionId}']`).locator("th, td").allTextContents()

  it("lists the sessions, newest activity first, with their clients, counts and the gateway's cost", async () => {
    await logged()
    const page = await c.open()
    await page.getByRole("link", { name: "Sessions" }).click()
    await page.getByRole("heading", { level: 1, name: /Sessions/ }).waitFor()
    expect(page.url()).toContain(`#/orgs/${orgId}/sessions`)

    const any = expect.any(String)
    await expect.poll(() => cells(page, "s-1")).toEqual([
      "s-1",
      "Claude Code 2.1.328",
      "ana@example.com",
      any,
      any,
      "3",
      "1",
      "2,000",
      "200",
      // 800 of 2,000 prompt tokens read from the cache
      "40.0%",
      // 2 x $0.0022; the failed request cost nothing
      "$0.0044",
      "–",
      "0",
      "fake/broken, fake/coder, fake/haiku"
    ])
    expect(await cells(page, "s-2")).toEqual([
      "s-2",
      "Codex 0.169.0",
      "–",
      any,
      any,
      "1",
      "0",
      "3,000",
      "50",
      "0%",
      "$0.0064",
      "–",
      "0",
      "fake/big"
    ])
    expect(await page.locator("tr[data-session-id='s-1'] [data-cell='cost'] data").getAttribute("value"))
      .toBe("0.004400")
    expect(await page.locator("tbody tr").evaluateAll((rows) => rows.map((row) => row.getAttribute("data-session-id"))))
      .toEqual(["s-1", "s-2"])
    // the full User-Agent stays in the tooltip
    expect(await page.locator("tr[data-session-id='s-1'] td").first().getAttribute("title"))
      .toBe("claude-cli/2.1.328 (external, cli)")

    // a period without the sessions: none listed
    await page.getByLabel("First day (UTC)").fill("2020-01-01")
    await page.getByLabel("Last day (UTC)").fill("2020-01-31")
    await page.getByRole("button", { name: "Show period" }).click()
    await expect.poll(() => page.getByText("No session in this period.").count()).toBe(1)
    expect(page.url()).toContain("from=2020-01-01&to=2020-02-01")
    await page.context().close()
  })

  it("shows a session's sums and its requests in order, each linking to the request's detail", async () => {
    await logged()
    const timeline = (await c.gw.admin("GET", `/orgs/${orgId}/sessions/s-1`)).json.timeline as Array<{ id: string }>
    const ids = timeline.map((entry) => entry.id)
    expect(ids).toHaveLength(3)

    const page = await c.open()
    await page.goto(`${c.gw.url}/console#/orgs/${orgId}/sessions`)
    await page.getByRole("link", { name: "s-1" }).click()
    await page.getByRole("heading", { level: 1, name: "Session s-1" }).waitFor()
    expect(page.url()).toContain(`#/orgs/${orgId}/sessions/s-1`)

    const figure = (name: string) => page.locator(`[data-figure='${name}'] .figure`).textContent()
    await expect.poll(() => figure("requests")).toBe("3")
    expect(await figure("errors")).toBe("1")
    expect(await figure("cost")).toBe("$0.0044")
    expect(await figure("tokens")).toBe("2,000")
    expect(await figure("cache")).toBe("40.0%")
    expect(await figure("tool-runs")).toBe("0")
    expect(await page.locator(".detail").textContent()).toContain("Claude Code 2.1.328")

    const rows = page.getByRole("region", { name: "Timeline" }).locator("tbody tr")
    expect(await rows.evaluateAll((all) => all.map((row) => row.getAttribute("data-request-id")))).toEqual(ids)
    const column = (n: number) => rows.locator(`td:nth-child(${n})`).allTextContents()
    // the headings of the figures' columns are right-aligned, as their cells are
    const numeric = await page.getByRole("region", { name: "Timeline" }).locator("thead th").evaluateAll((all) =>
      all.map((th) => `${th.classList.contains("num") ? "num:" : ""}${th.textContent}`)
    )
    expect(numeric).toEqual([
      "num:#",
      "Time",
      "num:After",
      "Model",
      "Status",
      "num:Tokens in",
      "num:Tokens out",
      "num:Cached",
      "num:Cost",
      "num:Latency",
      "Detail"
    ])
    expect(await column(1)).toEqual(["1", "2", "3"])
    expect(await column(3)).toEqual(["start", expect.stringMatching(/^\+/), expect.stringMatching(/^\+/)])
    expect(await column(4)).toEqual(["fake/coder", "fake/haiku", "fake/broken"])
    expect((await column(5)).map((status) => status.slice(0, 1))).toEqual(["2", "2", "5"])
    expect(await column(6)).toEqual(["1,000", "1,000", "0"])
    expect(await column(8)).toEqual(["400", "400", "0"])
    // the failure billed nothing: no cost, and not an unknown one
    expect(await column(9)).toEqual(["$0.0022", "$0.0022", "–"])
    const links = await rows.getByRole("link").evaluateAll((all) => all.map((a) => a.getAttribute("href")))
    expect(links).toEqual(ids.map((id) => `#/orgs/${orgId}/requests/${id}?session_id=s-1`))

    // a request's detail, and back through the browser's history to the session
    await rows.nth(1).getByRole("link").click()
    await page.getByRole("heading", { level: 1, name: `Request ${ids[1]}` }).waitFor()
    await expect.poll(() => page.locator(".detail").textContent()).toContain("fake/haiku")
    await page.goBack()
    await page.getByRole("heading", { level: 1, name: "Session s-1" }).waitFor()
    await page.getByRole("link", { name: "← Back to the sessions" }).click()
    await page.getByRole("heading", { level: 1, name: /Sessions/ }).waitFor()

    // a session the log does not hold: the API's words
    await page.goto(`${c.gw.url}/console#/orgs/${orgId}/sessions/nope`)
    await expect.poll(() => page.getByRole("alert").textContent()).toBe("No session with id 'nope'.")
    await page.context().close()
  })

  it("both pages fit a 375 px screen without sideways scrolling of the page", async () => {
    await logged()
    const page = await c.open({ width: 375 })
    for (const path of [`orgs/${orgId}/sessions`, `orgs/${orgId}/sessions/s-1`]) {
      await page.goto(`${c.gw.url}/console#/${path}`)
      await page.locator("main h1").waitFor()
      await expect.poll(() => page.locator("[aria-busy='true']").count()).toBe(0)
      await page.locator("main table").waitFor()
      const overflow = await inPage<number>(page, "document.documentElement.scrollWidth - window.innerWidth")
      expect(overflow, path).toBeLessThanOrEqual(0)
    }
    await page.context().close()
  })
})
