/**
 * The Responses API to a Responses upstream, and across formats: a Codex-like request to OpenAI
 * (adapter `openai`) reaches the upstream exactly as sent but for the model (every field, unknown tool
 * and item types, encrypted reasoning), and the upstream's events come back translated; a chat
 * completions client to an `openai-responses` target is written as a Responses request and its answer
 * read back; the `openai` adapter sends chat clients to chat completions. Shared tools, hydration and
 * pending ids on /v1/responses: the shared tool is added to the client's tools and the loop's turn
 * appended as items.
 */
import OpenAI from "openai"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import {
  completion,
  fakeGatewayEnv,
  type FakeUpstream,
  reply,
  startFakeUpstream,
  toolCall
} from "../utils/FakeUpstream.ts"
import { createCaller, setOrgTool } from "../utils/SharedToolsHarness.ts"
import { postChat, sseData, startGateway, type TestGateway } from "../utils/TestGateway.ts"

/** What Codex sends (fields as its captured requests have them). */
const codexBody = {
  model: "openai/gpt-5-codex",
  instructions: "You are Codex, a coding agent.",
  input: [
    {
      type: "message",
      role: "developer",
      content: [{ type: "input_text", text: "<permissions>workspace-write</permissions>" }]
    },
    {
      type: "message",
      role: "user",
      content: [{ type: "input_text", text: "<environment_context>cwd /w</environment_context>" }]
    },
    { type: "message", role: "user", content: [{ type: "input_text", text: "list the files" }] },
    {
      type: "reasoning",
      summary: [{ type: "summary_text", text: "**Listing**" }],
      content: null,
      encrypted_content: "gAAAAABo-encrypted"
    },
    { type: "function_call", name: "exec_command", arguments: "{\"cmd\":\"ls\"}", call_id: "call_ls" },
    { type: "function_call_output", call_id: "call_ls", output: "a.txt\nb.txt" },
    { type: "tool_search_call", id: "ts_1", query: "git" }
  ],
  tools: [
    {
      type: "function",
      name: "exec_command",
      description: "Runs a command",
      strict: false,
      parameters: { type: "object", properties: { cmd: { type: "string" } }, required: ["cmd"] }
    },
    { type: "web_search", external_web_access: false },
    {
      type: "namespace",
      name: "mcp__docs",
      tools: [{ type: "function", name: "search", parameters: { type: "object" } }]
    },
    { type: "tool_search", max_results: 8 }
  ],
  tool_choice: "auto",
  parallel_tool_calls: false,
  reasoning: { effort: "medium", summary: "auto" },
  store: false,
  stream: true,
  include: ["reasoning.encrypted_content"],
  prompt_cache_key: "019a-session",
  client_metadata: { originator: "codex_exec" },
  text: { verbosity: "low" }
}

let sequence = 0
const event = (type: string, data: Record<string, unknown> = {}) => ({ type, sequence_number: sequence++, ...data })
const responseOf = (status: string, output: ReadonlyArray<unknown>, usage: unknown = null) => ({
  id: "resp_up",
  object: "response",
  created_at: 1,
  status,
  model: "gpt-5-codex-2025",
  output,
  usage
})
const upstreamUsage = {
  input_tokens: 120,
  input_tokens_details: { cached_tokens: 100 },
  output_tokens: 30,
  output_tokens_details: { reasoning_tokens: 20 },
  total_tokens: 150
}
const reasoningItem = {
  id: "rs_up",
  type: "reasoning",
  summary: [{ type: "summary_text", text: "Thinking." }],
  encrypted_content: "gAAAAAB-next"
}
const messageItem = {
  id: "msg_up",
  type: "message",
  status: "completed",
  role: "assistant",
  content: [{ type: "output_text", text: "Two files.", annotations: [] }]
}

/** A Responses stream: reasoning (summary + encrypted content), then text. */
const responsesStream = () => {
  sequence = 0
  return [
    event("response.created", { response: responseOf("in_progress", []) }),
    event("response.in_progress", { response: responseOf("in_progress", []) }),
    event("response.output_item.added", { output_index: 0, item: { id: "rs_up", type: "reasoning", summary: [] } }),
    event("response.reasoning_summary_part.added", {
      item_id: "rs_up",
      output_index: 0,
      summary_index: 0,
      part: { type: "summary_text", text: "" }
    }),
    event("response.reasoning_summary_text.delta", {
      item_id: "rs_up",
      output_index: 0,
      summary_index: 0,
      delta: "Thinking."
    }),
    event("response.output_item.done", { output_index: 0, item: reasoningItem }),
    event("response.output_item.added", {
      output_index: 1,
      item: { ...messageItem, status: "in_progress", content: [] }
    }),
    event("response.output_text.delta", { item_id: "msg_up", output_index: 1, content_index: 0, delta: "Two " }),
    event("response.output_text.delta", { item_id: "msg_up", output_index: 1, content_index: 0, delta: "files." }),
    event("response.output_item.done", { output_index: 1, item: messageItem }),
    event("response.completed", { response: responseOf("completed", [reasoningItem, messageItem], upstreamUsage) })
  ]
}

/** The `data` objects of a named-event SSE body. */
const eventsOf = (text: string): Array<Record<string, unknown>> =>
  sseData(text).map((data) => JSON.parse(data) as Record<string, unknown>)

describe("the Responses API to a Responses upstream and across formats", () => {
  let gw: TestGateway
  let chatUpstream: FakeUpstream
  let upstream: FakeUpstream
  let key: string
  let orgId: string

  beforeAll(async () => {
    chatUpstream = await startFakeUpstream()
    upstream = await startFakeUpstream()
    gw = await startGateway(fakeGatewayEnv(chatUpstream, {
      providers: {
        openai: { adapter: "openai", base_url: `${upstream.url}/v1`, api_key_env: "FAKE_OPENAI_KEY" },
        oresp: { adapter: "openai-responses", base_url: `${upstream.url}/v1`, api_key_env: "FAKE_OPENAI_KEY" }
      },
      env: { FAKE_OPENAI_KEY: "sk-openai-upstream" }
    }))
    ;({ key, orgId } = await createCaller(gw))
  })
  afterAll(async () => {
    await gw?.close()
    await chatUpstream?.close()
    await upstream?.close()
  })
  beforeEach(() => {
    upstream.reset()
    chatUpstream.reset()
  })

  const responses = (body: unknown) => postChat(gw.url, body, { key, path: "/v1/responses" })

  it("Codex to OpenAI: the request arrives as sent but for the model; nothing is named as dropped", async () => {
    upstream.handle(() => reply.sse(responsesStream(), { named: true, end: "end" }))
    const response = await responses(codexBody)
    expect(response.status).toBe(200)
    expect(response.headers.get("x-svc-dropped-fields")).toBeNull()
    const events = eventsOf(await response.text())
    const request = upstream.last()
    expect(request.path).toBe("/v1/responses")
    expect(request.headers["authorization"]).toBe("Bearer sk-openai-upstream")
    expect(request.body).toEqual({ ...codexBody, model: "gpt-5-codex" })

    // the upstream's answer, in the client's format: reasoning with its encrypted content, then the text
    const done = events.filter((e) => e["type"] === "response.output_item.done").map((e) => e["item"])
    expect(done).toEqual([
      {
        id: expect.stringMatching(/^rs_/),
        type: "reasoning",
        summary: [{ type: "summary_text", text: "Thinking." }],
        encrypted_content: "gAAAAAB-next"
      },
      {
        id: expect.stringMatching(/^msg_/),
        type: "message",
        status: "completed",
        role: "assistant",
        content: [{ type: "output_text", text: "Two files.", annotations: [] }]
      }
    ])
    const completed = events.at(-1) as { type: string; response: { usage: unknown; status: string } }
    expect(completed.type).toBe("response.completed")
    expect(completed.response.usage).toEqual(upstreamUsage)
  })

  it("a whole answer from a Responses upstream; an upstream error keeps its status and message", async () => {
    upstream.handle(() => reply.json(responseOf("completed", [reasoningItem, messageItem], upstreamUsage)))
    const response = await responses({ model: "openai/gpt-5", input: "how many files?" })
    const body = await response.json() as { output: Array<Record<string, unknown>>; usage: unknown }
    expect(upstream.last().body).toEqual({ model: "gpt-5", input: "how many files?" })
    expect(body.output.map((item) => item["type"])).toEqual(["reasoning", "message"])
    expect(body.output[0]).toMatchObject({ encrypted_content: "gAAAAAB-next" })
    expect(body.usage).toEqual(upstreamUsage)

    upstream.handle(() =>
      reply.error(400, "Unsupported parameter: 'foo'.", { param: "foo", code: "unsupported_parameter" })
    )
    const refused = await responses({ model: "openai/gpt-5", input: "x", foo: 1 })
    expect(refused.status).toBe(400)
    expect(await refused.json()).toMatchObject({ error: { message: "Unsupported parameter: 'foo'." } })
  })

  it("chat completions to an openai-responses target: translated both ways, whole and streamed", async () => {
    upstream.handle(() => reply.json(responseOf("completed", [messageItem], upstreamUsage)))
    const whole = await postChat(gw.url, {
      model: "oresp/o3-pro",
      messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "files?" }],
      max_tokens: 50,
      temperature: 0.2,
      seed: 7,
      reasoning_effort: "high",
      tools: [{ type: "function", function: { name: "ls", parameters: { type: "object", properties: {} } } }]
    }, { key })
    expect(whole.status).toBe(200)
    expect(whole.headers.get("x-svc-dropped-fields")).toBe("seed")
    const completion = await whole.json() as {
      choices: Array<{ message: { content: string } }>
      usage: Record<string, unknown>
    }
    expect(completion.choices[0]?.message.content).toBe("Two files.")
    expect(completion.usage).toMatchObject({ prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 })
    expect(upstream.last().path).toBe("/v1/responses")
    expect(upstream.last().body).toEqual({
      model: "o3-pro",
      input: [
        { type: "message", role: "system", content: [{ type: "input_text", text: "Be brief." }] },
        { type: "message", role: "user", content: [{ type: "input_text", text: "files?" }] }
      ],
      store: false,
      stream: false,
      temperature: 0.2,
      max_output_tokens: 50,
      reasoning: { effort: "high", summary: "auto" },
      include: ["reasoning.encrypted_content"],
      tools: [{ type: "function", name: "ls", parameters: { type: "object", properties: {} }, strict: false }]
    })

    upstream.handle(() => reply.sse(responsesStream(), { named: true, end: "end" }))
    const streamed = await postChat(gw.url, {
      model: "oresp/o3-pro",
      messages: [{ role: "user", content: "files?" }],
      stream: true
    }, { key })
    const chunks = sseData(await streamed.text())
    expect(chunks.at(-1)).toBe("[DONE]")
    const deltas = chunks.slice(0, -1).map((data) =>
      (JSON.parse(data) as { choices: Array<{ delta: Record<string, unknown> }> }).choices[0]?.delta ?? {}
    )
    expect(deltas.map((delta) => delta["content"] ?? "").join("")).toBe("Two files.")
    expect(deltas.map((delta) => delta["reasoning_content"] ?? "").join("")).toBe("Thinking.")
  })

  it("the openai adapter sends a chat client to chat completions", async () => {
    upstream.handle(() => reply.json(completion({ content: "chat answer" })))
    const response = await postChat(gw.url, { model: "openai/gpt-4o", messages: [{ role: "user", content: "hi" }] }, {
      key
    })
    expect(response.status).toBe(200)
    expect(upstream.last().path).toBe("/v1/chat/completions")
  })

  it("shared tools: added to the client's tools, the loop's turn appended as items, the answer after it", async () => {
    await setOrgTool(gw, orgId, "svc_current_time", { activated: true })
    let round = 0
    upstream.handle(() => {
      round++
      return round === 1
        ? reply.json(
          responseOf("completed", [{
            id: "fc_1",
            type: "function_call",
            status: "completed",
            call_id: "call_t",
            name: "svc_current_time",
            arguments: "{\"timezone\":\"UTC\"}"
          }], upstreamUsage)
        )
        : reply.json(responseOf("completed", [messageItem], upstreamUsage))
    })
    const response = await responses({
      model: "openai/gpt-5",
      input: "what time is it?",
      tools: [codexBody.tools[0]],
      svc_tool_ids: ["svc_current_time"]
    })
    const body = await response.json() as { output: Array<Record<string, unknown>>; svc_tool_runs: unknown }
    expect(body.svc_tool_runs).toEqual([{ id: "svc_current_time", outcome: "ok", round: 1 }])
    expect(body.output.map((item) => item["type"])).toEqual(["message"])
    const [first, second] = upstream.requests
    expect(first?.body.tools).toEqual([
      codexBody.tools[0],
      expect.objectContaining({ type: "function", name: "svc_current_time" })
    ])
    expect(first?.body).not.toHaveProperty("svc_tool_ids")
    expect(second?.body.input).toEqual([
      { role: "user", content: "what time is it?" },
      { type: "function_call", call_id: "call_t", name: "svc_current_time", arguments: "{\"timezone\":\"UTC\"}" },
      { type: "function_call_output", call_id: "call_t", output: expect.stringContaining("\"timezone\":\"UTC\"") }
    ])
  })

  it("a tool hydrated for the org is injected on /v1/responses without being listed, whole and streamed", async () => {
    await setOrgTool(gw, orgId, "svc_current_time", { activated: true, hydrate_org: true })
    try {
      const input = "call svc_current_time {\"timezone\":\"Europe/Paris\"}"
      const whole = await (await responses({ model: "local/echo", input })).json() as {
        output: Array<Record<string, unknown>>
        svc_tool_runs: unknown
      }
      expect(whole.svc_tool_runs).toEqual([{ id: "svc_current_time", outcome: "ok", round: 1 }])
      expect(JSON.stringify(whole.output)).toContain("Europe/Paris")
      expect(whole.output.some((item) => item["type"] === "function_call")).toBe(false)

      const events = eventsOf(await (await responses({ model: "local/echo", input, stream: true })).text())
      const completed = events.at(-1) as {
        type: string
        response: { svc_tool_runs: unknown; output: Array<Record<string, unknown>> }
      }
      expect(completed.type).toBe("response.completed")
      expect(completed.response.svc_tool_runs).toEqual([{ id: "svc_current_time", outcome: "ok", round: 1 }])
      expect(events.some((event) => event["type"] === "response.function_call_arguments.delta")).toBe(false)
    } finally {
      await setOrgTool(gw, orgId, "svc_current_time", { activated: true, hydrate_org: false })
    }
  })

  it("a mixed turn on /v1/responses: only the client's call comes back, with a svc_pending_id that restores the gateway's turn", async () => {
    await setOrgTool(gw, orgId, "svc_generate_uuid", { activated: true })
    chatUpstream.handle(() =>
      reply.json(
        completion({
          content: null,
          toolCalls: [
            toolCall("call_uuid", "svc_generate_uuid", {}),
            toolCall("call_ls", "exec_command", { cmd: "ls" })
          ]
        })
      )
    )
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 })
    const tools = [codexBody.tools[0] as OpenAI.Responses.FunctionTool]
    const first = await client.responses.create(
      { model: "fake/m", input: "an id and the files", tools, svc_tool_ids: ["svc_generate_uuid"] } as never
    ) as OpenAI.Responses.Response & { svc_pending_id?: string }
    expect(first.output).toEqual([
      expect.objectContaining({ type: "function_call", call_id: "call_ls", name: "exec_command" })
    ])
    expect(first.svc_pending_id).toMatch(/^svcpend_/)

    chatUpstream.handle(() => reply.json(completion({ content: "done" })))
    const second = await client.responses.create({
      model: "fake/m",
      tools,
      input: [
        { role: "user", content: "an id and the files" },
        { type: "function_call", call_id: "call_ls", name: "exec_command", arguments: "{\"cmd\":\"ls\"}" },
        { type: "function_call_output", call_id: "call_ls", output: "a.txt" }
      ],
      svc_tool_ids: ["svc_generate_uuid"],
      svc_pending_id: first.svc_pending_id
    } as never)
    expect(second.output_text).toBe("done")
    const sent = chatUpstream.last().body.messages ?? []
    expect(sent.filter((m) => m["role"] === "tool").map((m) => m["tool_call_id"]).sort()).toEqual([
      "call_ls",
      "call_uuid"
    ])
  })
})
