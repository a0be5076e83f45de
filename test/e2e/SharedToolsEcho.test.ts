/**
 * The shared-tool loop fully offline: the built-in `local/echo` model calls a tool when told
 * `call <tool> <json-args>` and that tool is offered, and answers with the tool results. With the real
 * `svc_current_time` plugin this is the README example: activate it for the org, list it in
 * `svc_tool_ids`, ask for Paris time, get a datetime at +01:00 or +02:00. Whole and streamed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type Caller,
  createCaller,
  errorOf,
  finishReasons,
  setOrgTool,
  sharedCompletionOf,
  streamedText,
  streamedToolDeltas,
  streamOf
} from "../utils/SharedToolsHarness.ts"
import { postChat, startGateway, type TestGateway } from "../utils/TestGateway.ts"

const PARIS = "call svc_current_time {\"timezone\":\"Europe/Paris\"}"
/** ISO 8601 local time in Paris: winter +01:00, summer +02:00. */
const PARIS_DATETIME = /"datetime":"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+0[12]:00"/

describe("local/echo drives the shared-tool loop offline", () => {
  let gw: TestGateway
  let caller: Caller

  beforeAll(async () => {
    gw = await startGateway()
    caller = await createCaller(gw)
    await setOrgTool(gw, caller.orgId, "svc_current_time", { activated: true })
  })
  afterAll(() => gw?.close())

  const ask = (content: string, extra: Readonly<Record<string, unknown>> = {}) =>
    postChat(gw.url, {
      model: "local/echo",
      messages: [{ role: "user", content }],
      svc_tool_ids: ["svc_current_time"],
      ...extra
    }, {
      key: caller.key
    })

  it("the README example: Paris time comes back as a datetime at +01:00 or +02:00", async () => {
    const body = await sharedCompletionOf(await ask(PARIS))
    const content = body.choices[0]?.message.content ?? ""
    expect(content).toMatch(PARIS_DATETIME)
    expect(JSON.parse(content)).toMatchObject({ timezone: "Europe/Paris", unix: expect.any(Number) })
    expect(Math.abs((JSON.parse(content) as { unix: number }).unix - Date.now() / 1000)).toBeLessThan(60)
    expect(body.choices[0]?.finish_reason).toBe("stop")
    expect(body.choices[0]?.message.tool_calls).toBeUndefined()
    expect(body.model).toBe("local/echo")
    expect(body.svc_tool_runs).toEqual([{ id: "svc_current_time", outcome: "ok", round: 1 }])
    // local/echo counts words: round 1 reads 3 and calls with 1; round 2 reads those 4 plus the
    // one-word JSON result and answers it in 1 word
    expect(body.usage).toMatchObject({ prompt_tokens: 8, completion_tokens: 2, total_tokens: 10 })
  })

  it("the same, streamed: the answer's deltas, no tool-call delta, the summed usage last", async () => {
    const chunks = await streamOf(await ask(PARIS, { stream: true, stream_options: { include_usage: true } }))
    expect(streamedText(chunks)).toMatch(PARIS_DATETIME)
    expect(streamedToolDeltas(chunks)).toEqual([])
    expect(finishReasons(chunks)).toEqual(["stop"])
    expect(chunks.at(-1)?.usage).toMatchObject({ prompt_tokens: 8, completion_tokens: 2, total_tokens: 10 })
    expect(chunks.at(-1)?.svc_tool_runs).toEqual([{ id: "svc_current_time", outcome: "ok", round: 1 }])
  })

  it("a tool error (unknown timezone) is the result the model answers with", async () => {
    const body = await sharedCompletionOf(await ask("call svc_current_time {\"timezone\":\"Mars/Olympus\"}"))
    expect(body.choices[0]?.message.content).toContain("Unknown timezone 'Mars/Olympus'")
    expect(body.svc_tool_runs).toEqual([{ id: "svc_current_time", outcome: "error", round: 1 }])
  })

  it("not listed, not hydrated: the tool is not offered, so echo just echoes", async () => {
    const response = await postChat(gw.url, { model: "local/echo", messages: [{ role: "user", content: PARIS }] }, {
      key: caller.key
    })
    const body = await sharedCompletionOf(response)
    expect(body.choices[0]?.message.content).toBe(PARIS)
    expect(body).not.toHaveProperty("svc_tool_runs")
  })

  it("hydrated for the org: used without being listed", async () => {
    const other = await createCaller(gw)
    await setOrgTool(gw, other.orgId, "svc_current_time", { activated: true, hydrate_org: true })
    const response = await postChat(gw.url, { model: "local/echo", messages: [{ role: "user", content: PARIS }] }, {
      key: other.key
    })
    expect((await sharedCompletionOf(response)).choices[0]?.message.content).toMatch(PARIS_DATETIME)
  })

  it("tool_choice none: no tool runs, the command is echoed", async () => {
    const body = await sharedCompletionOf(await ask(PARIS, { tool_choice: "none" }))
    expect(body.choices[0]?.message.content).toBe(PARIS)
    expect(body).not.toHaveProperty("svc_tool_runs")
  })

  it("not activated for the org: 400 invalid_svc_tool_ids", async () => {
    const stranger = await createCaller(gw)
    const response = await postChat(gw.url, {
      model: "local/echo",
      messages: [{ role: "user", content: PARIS }],
      svc_tool_ids: ["svc_current_time"]
    }, { key: stranger.key })
    const error = await errorOf(response, 400)
    expect(error.code).toBe("invalid_svc_tool_ids")
    expect(error.invalid_svc_tool_ids).toEqual(["svc_current_time"])
  })
})
