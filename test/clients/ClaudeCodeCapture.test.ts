/**
 * What the pinned Claude Code sends, against a capture server on 127.0.0.1 rather than the gateway
 * (`npm run test:clients`): with the harness's offline settings it makes no request but `POST
 * /v1/messages?beta=true`, with the headers and body fields the gateway's Messages endpoint reads, and
 * it completes a turn in which the model calls its own `Bash` tool. When a new Claude Code release
 * changes any of this, this file says so before the gateway's own client tests do.
 */
import { afterEach, describe, expect, it } from "vitest"
import {
  type AnswerBlock,
  type CapturedRequest,
  type CaptureServer,
  startCaptureServer,
  streamEvents
} from "./CaptureServer.ts"
import { CLAUDE_CODE_VERSION, ensureClaudeCode, runClaude } from "./ClaudeCode.ts"

const MARK = "svc-gateway-ok"

interface Block {
  readonly type?: unknown
  readonly text?: unknown
  readonly content?: unknown
  readonly name?: unknown
}

const messagesOf = (
  request: CapturedRequest
): ReadonlyArray<{ readonly role?: unknown; readonly content?: unknown }> => {
  const messages = (request.body as { messages?: unknown }).messages
  return Array.isArray(messages) ? messages : []
}

const blocksOf = (request: CapturedRequest): ReadonlyArray<Block> =>
  messagesOf(request).flatMap((
    message
  ) => (Array.isArray(message.content) ? (message.content as ReadonlyArray<Block>) : []))

const toolResults = (request: CapturedRequest): ReadonlyArray<Block> =>
  blocksOf(request).filter((block) => block.type === "tool_result")

const textOf = (value: unknown): string =>
  typeof value === "string"
    ? value
    : Array.isArray(value)
    ? value.map(textOf).join("")
    : typeof value === "object" && value !== null
    ? textOf((value as Block).text) + textOf((value as Block).content)
    : ""

describe(`Claude Code ${CLAUDE_CODE_VERSION} against a capture server`, () => {
  let server: CaptureServer | undefined
  afterEach(async () => {
    await server?.close()
    server = undefined
  })

  it("installs (or finds) the pinned release", () => {
    expect(ensureClaudeCode()).toMatch(/claude/)
  }, 300_000)

  it("answers a prompt with one streamed POST /v1/messages and nothing else", async () => {
    const capture = server = await startCaptureServer(() => [{ type: "text", text: "Hi from the capture server." }])
    const run = await runClaude({
      baseUrl: capture.url,
      apiKey: "sk-capture",
      model: "local/echo",
      prompt: "say hi",
      timeoutMs: 45_000
    })
    expect(run.exitCode, run.stderr).toBe(0)
    expect(run.stdout).toContain("Hi from the capture server.")
    // no HEAD /api/hello, /v1/models, count_tokens or telemetry: non-essential traffic is off
    expect(capture.requests.map((request) => `${request.method} ${request.url}`)).toEqual([
      "POST /v1/messages?beta=true"
    ])
    const [request] = capture.requests
    expect(request?.headers["x-api-key"]).toBe("sk-capture")
    expect(request?.headers["anthropic-version"]).toBe("2023-06-01")
    expect(String(request?.headers["anthropic-beta"])).toContain("claude-code-20250219")
    expect(String(request?.headers["user-agent"])).toContain(`claude-cli/${CLAUDE_CODE_VERSION}`)
    expect(request?.headers["x-claude-code-session-id"]).toMatch(/^[0-9a-f-]{36}$/)
    const body = request?.body as {
      model?: unknown
      stream?: unknown
      max_tokens?: unknown
      tools?: ReadonlyArray<{ name?: unknown }>
    }
    expect(body.model).toBe("local/echo")
    expect(body.stream).toBe(true)
    expect(typeof body.max_tokens).toBe("number")
    expect((body.tools ?? []).map((tool) => tool.name)).toContain("Bash")
    // its environment goes as a `system` turn among the messages, after the user's prompt
    expect(messagesOf(request!).map((message) => message.role)).toEqual(["user", "system"])
    expect(blocksOf(request!).some((block) => block.text === "say hi")).toBe(true)
  }, 60_000)

  it("runs its Bash tool when the model asks, and sends the output back as a tool_result", async () => {
    const script = (request: CapturedRequest): ReadonlyArray<AnswerBlock> =>
      toolResults(request).length > 0
        ? [{ type: "text", text: `The command printed ${textOf(toolResults(request)).trim()}.` }]
        : [{
          type: "tool_use",
          id: "toolu_capture_1",
          name: "Bash",
          input: { command: `echo ${MARK}`, description: "Print a marker" }
        }]
    const capture = server = await startCaptureServer(script)
    const run = await runClaude({
      baseUrl: capture.url,
      apiKey: "sk-capture",
      model: "local/echo",
      prompt: "Run the marker command.",
      extraArgs: ["--allowedTools", "Bash"],
      timeoutMs: 45_000
    })
    expect(run.exitCode, run.stderr).toBe(0)
    expect(run.stdout).toContain(`The command printed ${MARK}.`)
    const sent = capture.messages()
    expect(sent.length).toBe(2)
    const second = sent[1]!
    expect(second.headers["x-claude-code-session-id"]).toBe(sent[0]?.headers["x-claude-code-session-id"])
    expect(messagesOf(second).map((message) => message.role)).toEqual(["user", "system", "assistant", "user"])
    expect(blocksOf(second).find((block) => block.type === "tool_use")).toMatchObject({
      id: "toolu_capture_1",
      name: "Bash"
    })
    expect(toolResults(second)).toEqual([
      expect.objectContaining({ tool_use_id: "toolu_capture_1", content: MARK, is_error: false })
    ])
  }, 60_000)

  it("the capture server answers a request that is not streamed with one JSON message, and 404 to anything else", async () => {
    const capture = server = await startCaptureServer()
    const whole = await fetch(`${capture.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", max_tokens: 5, messages: [{ role: "user", content: "hi" }] })
    })
    expect(await whole.json()).toMatchObject({
      type: "message",
      role: "assistant",
      model: "m",
      stop_reason: "end_turn"
    })
    const missing = await fetch(`${capture.url}/v1/models`)
    expect(missing.status).toBe(404)
    expect(streamEvents([{ type: "text", text: "a b" }], "m", "msg_1").map(([event]) => event)).toEqual([
      "message_start",
      "content_block_start",
      "ping",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop"
    ])
  })
})
