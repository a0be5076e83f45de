/**
 * The real OpenCode through the gateway (`npm run test:clients`), on `POST /v1/chat/completions` as an
 * OpenAI-compatible provider: it answers with `local/echo` (its requests logged under its own session
 * id, its `x-session-id`), and it completes a turn in which the model, behind a fake
 * chat-completions upstream on 127.0.0.1, calls OpenCode's own `bash` tool, OpenCode runs it, and the
 * model's next answer comes back.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  chunk,
  fakeGatewayEnv,
  type FakeUpstream,
  reply,
  startFakeUpstream,
  textStream,
  type UpstreamRequest,
  usageChunk
} from "../utils/FakeUpstream.ts"
import { startGateway, type TestGateway } from "../utils/TestGateway.ts"
import { ensureOpenCode, OPENCODE_VERSION, runOpenCode } from "./OpenCode.ts"

const MARK = "svc-gateway-opencode-ok"
// the command's text is not its output: the output reaches the model only if OpenCode really ran it
const OUTPUT = "svc-gateway-opencode-42"
const COMMAND = JSON.stringify({ command: "echo svc-gateway-opencode-$((40 + 2))", description: "Print a marker" })

/** The text of every tool message the upstream received. */
const toolOutputs = (request: UpstreamRequest): string =>
  (request.body.messages ?? []).filter((message) => message["role"] === "tool").map((message) =>
    JSON.stringify(message["content"])
  ).join("\n")

const toolNames = (request: UpstreamRequest): ReadonlyArray<string> =>
  (request.body.tools ?? []).map((tool) => (tool as { function: { name: string } }).function.name)

describe(`OpenCode ${OPENCODE_VERSION} through the gateway`, () => {
  let gw: TestGateway
  let chat: FakeUpstream
  let key: string
  let orgId: string

  beforeAll(async () => {
    ensureOpenCode()
    chat = await startFakeUpstream()
    gw = await startGateway(fakeGatewayEnv(chat, { env: { GATEWAY_LOG_FLUSH_INTERVAL: "20 millis" } }))
    ;({ key, orgId } = await gw.newKey())
  }, 360_000)
  afterAll(async () => {
    await gw?.close()
    await chat?.close()
  })

  it("answers with local/echo, its requests logged under its own session id", async () => {
    const run = await runOpenCode({
      baseUrl: gw.url,
      apiKey: key,
      model: "local/echo",
      prompt: `Say "${MARK}" back, word for word.`
    })
    expect(run.exitCode, run.stderr).toBe(0)
    // the prompt arrived as it was written, and its echo is the whole answer
    expect(run.stdout.trim()).toBe(`Say "${MARK}" back, word for word.`)
    // nothing but the gateway: no models.dev catalogue, update check or plugin install tried to go out
    expect(run.outbound).toEqual([])
    // the session's title, then its answer, both under OpenCode's session (its x-session-id)
    let session = ""
    await expect.poll(async () => {
      const sessions = (await gw.admin("GET", `/orgs/${orgId}/sessions`)).json.data as Array<
        { session_id: string; requests: number }
      >
      session = sessions[0]?.session_id ?? ""
      return sessions.map((s) => `${s.session_id.startsWith("ses_")}:${s.requests}`)
    }, { timeout: 5_000 }).toEqual(["true:2"])
    const rows = (await gw.admin("GET", `/orgs/${orgId}/requests?session_id=${session}`)).json.data as Array<
      { requested_model: string; user_agent: string; stream: boolean; status: number }
    >
    for (const row of rows) {
      expect(row.requested_model).toBe("local/echo")
      expect(row.stream).toBe(true)
      expect(row.status).toBe(200)
      expect(row.user_agent).toMatch(new RegExp(`^opencode/${OPENCODE_VERSION.replaceAll(".", "\\.")} `))
    }
  })

  it("runs its bash tool for a model behind a chat-completions upstream, and the model's next answer comes back", async () => {
    chat.reset()
    chat.handle((request) =>
      toolNames(request).length === 0
        // the title OpenCode asks its small model for, without tools
        ? reply.sse(textStream(["Print a marker"]))
        : toolOutputs(request).includes(OUTPUT)
        ? reply.sse(textStream(["The command printed ", `${OUTPUT}, ${MARK}.`]))
        : reply.sse([
          chunk({
            role: "assistant",
            tool_calls: [{ index: 0, id: "call_bash", type: "function", function: { name: "bash", arguments: "" } }]
          }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: COMMAND } }] }, "tool_calls"),
          usageChunk()
        ])
    )
    const run = await runOpenCode({ baseUrl: gw.url, apiKey: key, model: "fake/gpt-coder", prompt: "print the marker" })
    expect(run.exitCode, run.stderr).toBe(0)
    expect(run.stdout).toContain(`The command printed ${OUTPUT}, ${MARK}.`)
    expect(run.outbound).toEqual([])
    const turns = chat.requests.filter((request) => toolNames(request).length > 0)
    expect(turns).toHaveLength(2)
    const [first, second] = turns
    expect(first?.path).toBe("/v1/chat/completions")
    expect(first?.body.model).toBe("gpt-coder")
    expect(toolNames(first!)).toContain("bash")
    expect(toolOutputs(second!)).toContain(OUTPUT)
  })
})
