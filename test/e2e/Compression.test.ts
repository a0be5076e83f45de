/**
 * Compression end to end: what reaches each upstream (chat completions, Anthropic's Messages as the
 * client wrote them, the Responses API), what the client is told (`x-svc-compression`,
 * `x-svc-tokens-saved`, whole and streamed), what the log keeps (the level, the saving, shadow's
 * figures, the original prompt text), and how the level is chosen (header, org, gateway) and refused.
 */
import { countTokens } from "gpt-tokenizer/encoding/o200k_base"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { anthropicMessage } from "../utils/FakeAnthropic.ts"
import {
  completion,
  fakeGatewayEnv,
  type FakeUpstream,
  reply,
  startFakeUpstream,
  textStream,
  toolCall
} from "../utils/FakeUpstream.ts"
import { createCaller } from "../utils/SharedToolsHarness.ts"
import { expectError, logRowOf, postChat, startGateway, type TestGateway } from "../utils/TestGateway.ts"

const ESC = "\u001b"
/** A tool result as a coding agent sends it: coloured test output with a spinner's redraws. */
const TEST_OUTPUT = [
  `${ESC}[2K${ESC}[1G⠋ running tests${ESC}[2K${ESC}[1G⠙ running tests${ESC}[2K${ESC}[1G`,
  `${ESC}[32m ✓${ESC}[39m test/a.test.ts ${ESC}[2m(12 tests)${ESC}[22m ${ESC}[33m31ms${ESC}[39m   `,
  `${ESC}[32m ✓${ESC}[39m test/b.test.ts ${ESC}[2m(4 tests)${ESC}[22m ${ESC}[33m8ms${ESC}[39m   `,
  "",
  "",
  "",
  `${ESC}[1m Test Files ${ESC}[22m ${ESC}[1m${ESC}[32m2 passed${ESC}[39m${ESC}[22m`
].join("\n")
const TEST_OUTPUT_SAFE = [
  " ✓ test/a.test.ts (12 tests) 31ms",
  " ✓ test/b.test.ts (4 tests) 8ms",
  "",
  " Test Files  2 passed"
].join("\n")
/** Pretty-printed JSON from an API, with a 64-bit id that must keep its digits. */
const API_JSON = JSON.stringify({ items: [{ id: "a", size: 12 }, { id: "b", size: 7 }], total: 2 }, null, 2)
  .replace("\"total\": 2", "\"total\": 9007199254740993")
const API_JSON_SAFE = "{\"items\":[{\"id\":\"a\",\"size\":12},{\"id\":\"b\",\"size\":7}],\"total\":9007199254740993}"
const PRETTY_ARGS = "{\n  \"command\": \"npm test\",\n  \"timeout\": 60\n}"

const savedBy = (pairs: ReadonlyArray<readonly [string, string]>) =>
  pairs.reduce((sum, [before, after]) => sum + countTokens(before) - countTokens(after), 0)

const chatConversation = [
  { role: "system", content: "You run tests.   \n\n\n\nSystem prompts stay as they are." },
  { role: "user", content: "run the tests   " },
  {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "call_1", type: "function", function: { name: "bash", arguments: PRETTY_ARGS } }]
  },
  { role: "tool", tool_call_id: "call_1", content: TEST_OUTPUT },
  { role: "user", content: "and the API?" },
  {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "call_2", type: "function", function: { name: "curl", arguments: "{}" } }]
  },
  { role: "tool", tool_call_id: "call_2", content: API_JSON }
]
const bashTool = {
  type: "function",
  function: { name: "bash", description: "Runs   a command.\n\n\n", parameters: { type: "object", properties: {} } }
}

describe("compression end to end", () => {
  let gw: TestGateway
  let upstream: FakeUpstream
  let anthropic: FakeUpstream
  let key: string
  let orgId: string

  beforeAll(async () => {
    upstream = await startFakeUpstream()
    anthropic = await startFakeUpstream()
    gw = await startGateway(fakeGatewayEnv(upstream, {
      providers: {
        anthropic: { adapter: "anthropic", base_url: anthropic.url, api_key_env: "FAKE_ANTHROPIC_KEY" },
        oresp: { adapter: "openai-responses", base_url: `${upstream.url}/v1`, api_key_env: "FAKE_KEY" }
      },
      env: { FAKE_ANTHROPIC_KEY: "sk-ant", GATEWAY_LOG_FLUSH_INTERVAL: "20 millis" }
    }))
    ;({ key, orgId } = await createCaller(gw))
  })
  afterAll(async () => {
    await gw?.close()
    await upstream?.close()
    await anthropic?.close()
  })
  beforeEach(() => {
    upstream.reset()
    anthropic.reset()
  })

  const rowOf = (response: Response, org = orgId): Promise<Record<string, unknown>> =>
    logRowOf(gw, org, response.headers.get("x-svc-request-id") ?? "")

  it("safe by default: tool results and tool-call arguments compressed, nothing else; the saving told and logged", async () => {
    upstream.handle(() => reply.json(completion({ content: "ok" })))
    const response = await postChat(gw.url, { model: "fake/m", messages: chatConversation, tools: [bashTool] }, { key })
    expect(response.status).toBe(200)
    const sent = upstream.last().body
    expect(sent.messages).toEqual([
      chatConversation[0],
      chatConversation[1],
      {
        ...chatConversation[2],
        tool_calls: [{
          id: "call_1",
          type: "function",
          function: { name: "bash", arguments: "{\"command\":\"npm test\",\"timeout\":60}" }
        }]
      },
      { role: "tool", tool_call_id: "call_1", content: TEST_OUTPUT_SAFE },
      chatConversation[4],
      chatConversation[5],
      { role: "tool", tool_call_id: "call_2", content: API_JSON_SAFE }
    ])
    expect(sent.tools).toEqual([bashTool])
    const saved = savedBy([
      [PRETTY_ARGS, "{\"command\":\"npm test\",\"timeout\":60}"],
      [TEST_OUTPUT, TEST_OUTPUT_SAFE],
      [API_JSON, API_JSON_SAFE]
    ])
    expect(saved).toBeGreaterThan(50)
    expect(response.headers.get("x-svc-compression")).toBe("safe")
    expect(response.headers.get("x-svc-tokens-saved")).toBe(String(saved))
    expect(await rowOf(response)).toMatchObject({
      compression_level: "safe",
      prompt_tokens_saved: saved,
      // the fake's usage reports no cache reads: every saved token was fresh input
      prompt_tokens_saved_net: saved,
      shadow_tokens_saved_safe: null
    })
  })

  it("the same conversation compresses to the same bytes, and a next turn keeps the earlier turns' bytes", async () => {
    upstream.handle(() => reply.json(completion({ content: "ok" })))
    await postChat(gw.url, { model: "fake/m", messages: chatConversation }, { key })
    await postChat(gw.url, { model: "fake/m", messages: chatConversation }, { key })
    const next = [...chatConversation, { role: "assistant", content: "done" }, { role: "user", content: "again" }]
    await postChat(gw.url, { model: "fake/m", messages: next }, { key })
    const [first, second, third] = upstream.requests.map((request) => request.rawBody)
    expect(second).toBe(first)
    const prefix = (raw: string) =>
      JSON.stringify((JSON.parse(raw) as { messages: Array<unknown> }).messages.slice(0, chatConversation.length))
    expect(prefix(third!)).toBe(prefix(first!))
  })

  it("streamed: the header tells the saving; the log has it", async () => {
    upstream.handle(() => reply.sse(textStream(["o", "k"])))
    const response = await postChat(gw.url, { model: "fake/m", messages: chatConversation, stream: true }, { key })
    await response.text()
    const saved = response.headers.get("x-svc-tokens-saved")
    expect(Number(saved)).toBeGreaterThan(50)
    expect((await rowOf(response))["prompt_tokens_saved"]).toBe(Number(saved))
  })

  it("x-svc-compression: off sends the conversation as it came; nothing to count is 0", async () => {
    upstream.handle(() => reply.json(completion({ content: "ok" })))
    const off = await postChat(gw.url, { model: "fake/m", messages: chatConversation }, {
      key,
      headers: { "x-svc-compression": "off" }
    })
    expect(upstream.last().body.messages).toEqual(chatConversation)
    expect([off.headers.get("x-svc-compression"), off.headers.get("x-svc-tokens-saved")]).toEqual(["off", "0"])
    const plain = await postChat(gw.url, { model: "fake/m", messages: [{ role: "user", content: "hi" }] }, { key })
    expect([plain.headers.get("x-svc-compression"), plain.headers.get("x-svc-tokens-saved")]).toEqual(["safe", "0"])
    expect(await rowOf(off)).toMatchObject({ compression_level: "off", prompt_tokens_saved: 0 })
  })

  it("shadow: nothing changes on the wire; what safe would have saved is logged", async () => {
    upstream.handle(() => reply.json(completion({ content: "ok" })))
    const response = await postChat(gw.url, { model: "fake/m", messages: chatConversation }, {
      key,
      headers: { "x-svc-compression": "Shadow" }
    })
    expect(upstream.last().body.messages).toEqual(chatConversation)
    expect(response.headers.get("x-svc-tokens-saved")).toBe("0")
    const saved = savedBy([
      [PRETTY_ARGS, "{\"command\":\"npm test\",\"timeout\":60}"],
      [TEST_OUTPUT, TEST_OUTPUT_SAFE],
      [API_JSON, API_JSON_SAFE]
    ])
    expect(await rowOf(response)).toMatchObject({
      compression_level: "shadow",
      prompt_tokens_saved: 0,
      shadow_tokens_saved_safe: saved
    })
  })

  it("a bad x-svc-compression is a 400 naming the header, in the client's format", async () => {
    const chat = await postChat(gw.url, { model: "fake/m", messages: [{ role: "user", content: "hi" }] }, {
      key,
      headers: { "x-svc-compression": "max" }
    })
    await expectError(chat, 400, { param: "x-svc-compression", code: "invalid_compression" })
    const messages = await postChat(gw.url, {
      model: "anthropic/claude",
      max_tokens: 5,
      messages: [{ role: "user", content: "hi" }]
    }, {
      key,
      path: "/v1/messages",
      headers: { "x-svc-compression": "max" }
    })
    expect(messages.status).toBe(400)
    expect(await messages.json()).toMatchObject({
      type: "error",
      error: { type: "invalid_request_error", message: expect.stringContaining("x-svc-compression") }
    })
    expect(upstream.requests.length + anthropic.requests.length).toBe(0)
  })

  it("the org's level applies when the request names none; the header still wins", async () => {
    const other = await createCaller(gw)
    expect((await gw.admin("PATCH", `/orgs/${other.orgId}`, { compression: "off" })).status).toBe(200)
    upstream.handle(() => reply.json(completion({ content: "ok" })))
    const byOrg = await postChat(gw.url, { model: "fake/m", messages: chatConversation }, { key: other.key })
    expect(byOrg.headers.get("x-svc-compression")).toBe("off")
    expect(upstream.last().body.messages).toEqual(chatConversation)
    const byHeader = await postChat(gw.url, { model: "fake/m", messages: chatConversation }, {
      key: other.key,
      headers: { "x-svc-compression": "safe" }
    })
    expect(byHeader.headers.get("x-svc-compression")).toBe("safe")
    expect(upstream.last().body.messages).not.toEqual(chatConversation)
  })

  it("Messages to Anthropic: the client's tool_result compressed in its own request, system and tools untouched", async () => {
    anthropic.handle(() => reply.json(anthropicMessage({ content: [{ type: "text", text: "ok" }] })))
    const system = [{
      type: "text",
      text: "You are Claude Code.   \n\n\n\nKeep this.",
      cache_control: { type: "ephemeral" }
    }]
    const tools = [{
      name: "Bash",
      description: "Runs   commands\n\n\n",
      input_schema: { type: "object", properties: {} }
    }]
    const body = {
      model: "anthropic/claude-sonnet-4-5",
      max_tokens: 100,
      system,
      tools,
      messages: [
        { role: "user", content: "run the tests" },
        {
          role: "assistant",
          content: [{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "npm test" } }]
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_1", content: TEST_OUTPUT },
            { type: "text", text: `<system-reminder>\n${ESC}[31mkept   ${ESC}[0m\n</system-reminder>` }
          ]
        },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_2", name: "Bash", input: { command: "curl" } }] },
        {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: "toolu_2", content: [{ type: "text", text: API_JSON }] }]
        }
      ]
    }
    const response = await postChat(gw.url, body, { key, path: "/v1/messages" })
    expect(response.status).toBe(200)
    const sent = anthropic.last().body as Record<string, unknown>
    expect(sent["system"]).toEqual(system)
    expect(sent["tools"]).toEqual(tools)
    expect(sent["messages"]).toEqual([
      body.messages[0],
      body.messages[1],
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: TEST_OUTPUT_SAFE },
          body.messages[2]!.content[1]
        ]
      },
      body.messages[3],
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "toolu_2", content: [{ type: "text", text: API_JSON_SAFE }] }]
      }
    ])
    expect(Number(response.headers.get("x-svc-tokens-saved"))).toBe(
      savedBy([[TEST_OUTPUT, TEST_OUTPUT_SAFE], [API_JSON, API_JSON_SAFE]])
    )
  })

  it("the Responses API to a Responses upstream: function_call_output and arguments compressed in the client's items", async () => {
    upstream.handle(() =>
      reply.json({
        id: "resp_1",
        object: "response",
        created_at: 1,
        status: "completed",
        model: "gpt-5",
        output: [{
          id: "msg_1",
          type: "message",
          status: "completed",
          role: "assistant",
          content: [{ type: "output_text", text: "ok", annotations: [] }]
        }],
        usage: {
          input_tokens: 100,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: 2,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 102
        }
      })
    )
    const input = [
      { type: "message", role: "user", content: [{ type: "input_text", text: "run   the tests\n\n\n" }] },
      { type: "function_call", name: "exec_command", arguments: PRETTY_ARGS, call_id: "call_a" },
      { type: "function_call_output", call_id: "call_a", output: TEST_OUTPUT }
    ]
    const response = await postChat(gw.url, { model: "oresp/gpt-5", instructions: "Be   brief.\n\n\n", input }, {
      key,
      path: "/v1/responses"
    })
    expect(response.status).toBe(200)
    const sent = upstream.last().body as Record<string, unknown>
    expect(sent["instructions"]).toBe("Be   brief.\n\n\n")
    expect(sent["input"]).toEqual([
      input[0],
      { ...input[1], arguments: "{\"command\":\"npm test\",\"timeout\":60}" },
      { ...input[2], output: TEST_OUTPUT_SAFE }
    ])
  })

  it("aggressive: a long result keeps its ends; svc_expand_output is offered and returns the cut, for this key only", async () => {
    const lines = Array.from(
      { length: 600 },
      (_, i) => `PASS src/feature${i}/module.test.ts (${(i % 9) + 1}.${i % 10}s) suite ${"x".repeat((i % 13) + 1)}`
    )
    const conversation = [
      { role: "user", content: "run the suite" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_s", type: "function", function: { name: "bash", arguments: "{}" } }]
      },
      { role: "tool", tool_call_id: "call_s", content: lines.join("\n") }
    ]
    let cutId = ""
    upstream.handle((request) => {
      const messages = request.body.messages ?? []
      const last = messages[messages.length - 1] as { role: string; content: string }
      if (last.role === "tool" && last.content.includes("returns them]")) {
        cutId = /id "(cut_[\w-]{16})"/.exec(last.content)?.[1] ?? ""
        return reply.json(
          completion({ toolCalls: [toolCall("call_x", "svc_expand_output", { id: cutId, offset: 0, max_lines: 3 })] })
        )
      }
      return reply.json(completion({ content: "read it" }))
    })
    const response = await postChat(gw.url, { model: "fake/m", messages: conversation, tools: [bashTool] }, {
      key,
      headers: { "x-svc-compression": "aggressive" }
    })
    expect(response.status, await response.clone().text()).toBe(200)
    expect(
      ((await response.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content
    ).toBe("read it")
    const [first, second] = upstream.requests
    const sentResult = (first!.body.messages![2] as { content: string }).content.split("\n")
    expect(sentResult.slice(0, 80)).toEqual(lines.slice(0, 80))
    expect(sentResult.slice(-80)).toEqual(lines.slice(-80))
    expect(sentResult).toHaveLength(161)
    expect((first!.body.tools as Array<{ function: { name: string } }>).map((tool) => tool.function.name)).toEqual([
      "bash",
      "svc_expand_output"
    ])
    // the gateway ran the tool: the next round has the cut's first three lines as its result
    const expanded = second!.body.messages!.at(-1) as { role: string; content: string }
    expect(expanded.role).toBe("tool")
    expect(expanded.content).toBe(
      `${lines.slice(80, 83).join("\n")}\n[svc: lines 1-3 of 440; call again with offset 3 for the rest]`
    )
    expect(Number(response.headers.get("x-svc-tokens-saved"))).toBeGreaterThan(5000)

    // another key of another org cannot read that cut
    const stranger = await createCaller(gw)
    upstream.reset()
    upstream.handle((request) => {
      const messages = request.body.messages ?? []
      return (messages[messages.length - 1] as { role: string }).role === "tool"
        ? reply.json(completion({ content: "done" }))
        : reply.json(completion({ toolCalls: [toolCall("call_y", "svc_expand_output", { id: cutId })] }))
    })
    await gw.admin("PUT", `/orgs/${stranger.orgId}/svc-tools/svc_expand_output`, { activated: true })
    await postChat(gw.url, {
      model: "fake/m",
      messages: [{ role: "user", content: "expand it" }],
      svc_tool_ids: ["svc_expand_output"]
    }, { key: stranger.key })
    const refused = upstream.requests[1]!.body.messages!.at(-1) as { content: string }
    expect(refused.content).toContain(`No cut output with id '${cutId}' for this API key`)
  })

  it("the log keeps the original prompt for orgs that keep content", async () => {
    const kept = await createCaller(gw)
    expect((await gw.admin("PATCH", `/orgs/${kept.orgId}`, { log_content: true })).status).toBe(200)
    upstream.handle(() => reply.json(completion({ content: "ok" })))
    const response = await postChat(gw.url, { model: "fake/m", messages: chatConversation }, { key: kept.key })
    const row = await rowOf(response, kept.orgId)
    // the decoded messages, original text and all (fields in the gateway's order)
    expect(JSON.parse(String(row["prompt_text"]))).toEqual(chatConversation)
  })
})
