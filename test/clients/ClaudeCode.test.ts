/**
 * The real Claude Code through the gateway (`npm run test:clients`): it answers with `local/echo`, and
 * it completes a turn in which the model calls Claude Code's own `Bash` tool, Claude Code runs it, and
 * the model's next answer comes back, once through a fake OpenAI-compatible upstream (translated both
 * ways) and once through a fake Anthropic upstream (the same format end to end). Every upstream is a fake
 * on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { anthropicStream } from "../utils/FakeAnthropic.ts"
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
import { ensureClaudeCode, runClaude } from "./ClaudeCode.ts"

const MARK = "svc-gateway-bash-ok"

/** The tool results of a conversation: chat completions' `tool` messages, or Messages' `tool_result` blocks. */
const toolResults = (request: UpstreamRequest): ReadonlyArray<unknown> =>
  (request.body.messages ?? []).flatMap((message) =>
    message["role"] === "tool"
      ? [message["content"]]
      : Array.isArray(message["content"])
      ? message["content"].filter((block: { type?: unknown }) => block.type === "tool_result")
      : []
  )

const hasToolResult = (request: UpstreamRequest): boolean => toolResults(request).length > 0

/** The texts in a tool result, however it is written (a string, text parts, a block with content). */
const textsOf = (value: unknown): ReadonlyArray<string> =>
  typeof value === "string"
    ? [value]
    : Array.isArray(value)
    ? value.flatMap(textsOf)
    : typeof value === "object" && value !== null
    ? [...textsOf((value as { text?: unknown }).text), ...textsOf((value as { content?: unknown }).content)]
    : []

/** What the Bash run printed, as the upstream received it: the marker alone when the command really ran. */
const toolOutput = (request: UpstreamRequest): string =>
  toolResults(request).flatMap(textsOf).some((text) => text.trim() === MARK) ? MARK : "(something else)"

describe("Claude Code through the gateway", () => {
  let gw: TestGateway
  let openai: FakeUpstream
  let anthropic: FakeUpstream
  let key: string

  beforeAll(async () => {
    ensureClaudeCode()
    openai = await startFakeUpstream()
    anthropic = await startFakeUpstream()
    gw = await startGateway(fakeGatewayEnv(openai, {
      providers: { anthropic: { adapter: "anthropic", base_url: anthropic.url, api_key_env: "FAKE_ANTHROPIC_KEY" } },
      env: { FAKE_ANTHROPIC_KEY: "sk-ant-fake" }
    }))
    key = (await gw.newKey()).key
  }, 360_000)
  afterAll(async () => {
    await gw?.close()
    await openai?.close()
    await anthropic?.close()
  })

  it("answers with local/echo", async () => {
    const run = await runClaude({
      baseUrl: gw.url,
      apiKey: key,
      model: "local/echo",
      prompt: "echo this sentence back"
    })
    expect(run.exitCode, run.stderr).toBe(0)
    expect(run.outbound).toEqual([])
    expect(run.stdout).toContain("echo this sentence back")
  }, 120_000)

  it(
    "runs its Bash tool for a model behind a chat-completions upstream, and the model's next answer comes back",
    async () => {
      openai.handle((request) => {
        if (hasToolResult(request)) return reply.sse(textStream([`The command printed ${toolOutput(request)}.`]))
        return reply.sse([
          chunk({ role: "assistant", content: "" }),
          chunk({
            tool_calls: [{ index: 0, id: "call_bash_1", type: "function", function: { name: "Bash", arguments: "" } }]
          }),
          chunk({
            tool_calls: [{
              index: 0,
              function: { arguments: JSON.stringify({ command: `echo ${MARK}`, description: "Print a marker" }) }
            }]
          }),
          chunk({}, "tool_calls"),
          usageChunk()
        ])
      })
      const run = await runClaude({
        baseUrl: gw.url,
        apiKey: key,
        model: "fake/some-model",
        prompt: "Run the marker command.",
        extraArgs: ["--allowedTools", "Bash"]
      })
      expect(run.exitCode, run.stderr).toBe(0)
      expect(run.outbound).toEqual([])
      expect(run.stdout).toContain(`The command printed ${MARK}.`)
      const chats = openai.chatRequests()
      expect(chats.some(hasToolResult)).toBe(true)
      const tools = (chats[0]?.body.tools ?? []) as ReadonlyArray<{ function: { name: string } }>
      expect(tools.map((tool) => tool.function.name)).toContain("Bash")
    },
    180_000
  )

  it("runs its Bash tool for a model behind an Anthropic upstream, the same format end to end", async () => {
    anthropic.handle((request) => {
      if (!request.path.startsWith("/v1/messages")) {
        return reply.json({ type: "error", error: { type: "not_found_error", message: "no" } }, 404)
      }
      if (hasToolResult(request)) {
        return anthropicStream({ content: [{ type: "text", text: `The command printed ${toolOutput(request)}.` }] })
      }
      return anthropicStream({
        content: [{
          type: "tool_use",
          id: "toolu_bash_1",
          name: "Bash",
          input: { command: `echo ${MARK}`, description: "Print a marker" }
        }]
      })
    })
    const run = await runClaude({
      baseUrl: gw.url,
      apiKey: key,
      model: "claude-fake-1",
      prompt: "Run the marker command.",
      extraArgs: ["--allowedTools", "Bash"]
    })
    expect(run.exitCode, run.stderr).toBe(0)
    expect(run.outbound).toEqual([])
    expect(run.stdout).toContain(`The command printed ${MARK}.`)
    const sent = anthropic.requests.filter((request) =>
      request.path.startsWith("/v1/messages?") || request.path === "/v1/messages"
    )
    expect(sent.some(hasToolResult)).toBe(true)
    // the same format end to end: Claude Code's own beta list reached the upstream
    expect(String(sent[0]?.headers["anthropic-beta"] ?? "")).not.toBe("")
  }, 180_000)
})
