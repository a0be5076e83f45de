/**
 * The real Codex through the gateway (`npm run test:clients`), on `POST /v1/responses`: it answers with
 * `local/echo`, and it completes a turn in which the model calls Codex's own `exec_command` tool, Codex
 * runs it, and the model's next answer comes back, once through a fake chat-completions upstream
 * (translated both ways), once through a fake OpenAI Responses upstream (the same format end to end:
 * Codex's request arrives as it sent it, but for the model), and once through an `openai` provider whose
 * server has chat completions only (its 404 to /responses turns the requests into chat completions).
 * Every upstream is a fake on 127.0.0.1.
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
import { CODEX_VERSION, ensureCodex, runCodex } from "./Codex.ts"

const MARK = "svc-gateway-codex-ok"
const COMMAND = JSON.stringify({ cmd: `echo ${MARK}` })

type Json = Record<string, unknown>

/** The text of every tool output the upstream received, in either format. */
const toolOutputs = (request: UpstreamRequest): string => {
  const chat = (request.body.messages ?? []).filter((message) => message["role"] === "tool").map((message) =>
    JSON.stringify(message["content"])
  )
  const input = Array.isArray(request.body["input"]) ? request.body["input"] as Array<Json> : []
  const responses = input.filter((item) => item["type"] === "function_call_output").map((item) =>
    JSON.stringify(item["output"])
  )
  return [...chat, ...responses].join("\n")
}

/** A chat-completions model that calls `exec_command` to print the marker, then says `lead` and the marker. */
const execThenSay = (lead: string) => (request: UpstreamRequest) =>
  toolOutputs(request).includes(MARK)
    ? reply.sse(textStream([lead, `${MARK}.`]))
    : reply.sse([
      chunk({
        role: "assistant",
        tool_calls: [{ index: 0, id: "call_exec", type: "function", function: { name: "exec_command", arguments: "" } }]
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: COMMAND } }] }, "tool_calls"),
      usageChunk()
    ])

let sequence = 0
const event = (type: string, data: Json) => ({ type, sequence_number: sequence++, ...data })
const response = (status: string, output: ReadonlyArray<unknown>) => ({
  id: "resp_up",
  object: "response",
  created_at: 1,
  status,
  model: "gpt-up",
  output,
  usage: status === "completed" ? { input_tokens: 100, output_tokens: 10, total_tokens: 110 } : null
})
/** A Responses stream of one output item, `delta` its streamed text or arguments. */
const responsesStream = (item: Json, delta: Json) => {
  sequence = 0
  return [
    event("response.created", { response: response("in_progress", []) }),
    event("response.output_item.added", {
      output_index: 0,
      item: { ...item, ...(item["type"] === "message" ? { content: [] } : { arguments: "" }) }
    }),
    event(item["type"] === "message" ? "response.output_text.delta" : "response.function_call_arguments.delta", {
      item_id: item["id"],
      output_index: 0,
      content_index: 0,
      ...delta
    }),
    event("response.output_item.done", { output_index: 0, item }),
    event("response.completed", { response: response("completed", [item]) })
  ]
}

describe(`Codex ${CODEX_VERSION} through the gateway`, () => {
  let gw: TestGateway
  let chat: FakeUpstream
  let responses: FakeUpstream
  let chatOnly: FakeUpstream
  let key: string

  beforeAll(async () => {
    ensureCodex()
    chat = await startFakeUpstream()
    responses = await startFakeUpstream()
    chatOnly = await startFakeUpstream()
    gw = await startGateway(fakeGatewayEnv(chat, {
      providers: {
        openai: { adapter: "openai", base_url: `${responses.url}/v1`, api_key_env: "FAKE_OPENAI_KEY" },
        // OPENAI_BASE_URL pointed at a server that has chat completions and no /responses (older vLLM)
        vllm: { adapter: "openai", base_url: `${chatOnly.url}/v1`, api_key_env: "FAKE_OPENAI_KEY" }
      },
      env: { FAKE_OPENAI_KEY: "sk-openai-fake" }
    }))
    key = (await gw.newKey()).key
  }, 360_000)
  afterAll(async () => {
    await gw?.close()
    await chat?.close()
    await responses?.close()
    await chatOnly?.close()
  })

  it("answers with local/echo", async () => {
    const run = await runCodex({ baseUrl: gw.url, apiKey: key, model: "local/echo", prompt: MARK })
    expect(run.exitCode, run.stderr).toBe(0)
    expect(run.stdout.trim()).toBe(MARK)
    // nothing but the gateway: no update check, plugin sync or telemetry tried to go out
    expect(run.outbound).toEqual([])
  })

  it("runs its exec_command tool for a model behind a chat-completions upstream, and the model's next answer comes back", async () => {
    chat.reset()
    chat.handle(execThenSay("The command printed "))
    const run = await runCodex({ baseUrl: gw.url, apiKey: key, model: "fake/gpt-codex", prompt: "print the marker" })
    expect(run.exitCode, run.stderr).toBe(0)
    expect(run.stdout).toContain(`The command printed ${MARK}.`)
    expect(run.outbound).toEqual([])
    const [first, second] = chat.requests
    expect(first?.body.model).toBe("gpt-codex")
    expect((first?.body.tools ?? []).map((tool) => (tool as { function: { name: string } }).function.name)).toContain(
      "exec_command"
    )
    expect(toolOutputs(second!)).toContain(MARK)
  })

  it("works against an OpenAI-compatible server without /responses: its 404 turns the request into chat completions", async () => {
    const answer = execThenSay("Chat-only server printed ")
    chatOnly.handle((request) =>
      request.path.endsWith("/responses") ? reply.json({ detail: "Not Found" }, 404) : answer(request)
    )
    const run = await runCodex({ baseUrl: gw.url, apiKey: key, model: "vllm/qwen-coder", prompt: "print the marker" })
    expect(run.exitCode, run.stderr).toBe(0)
    expect(run.stdout).toContain(`Chat-only server printed ${MARK}.`)
    expect(run.outbound).toEqual([])
    // one try of /responses, then chat completions for the rest of the run
    expect(chatOnly.requests.map((request) => request.path)).toEqual([
      "/v1/responses",
      "/v1/chat/completions",
      "/v1/chat/completions"
    ])
    expect(toolOutputs(chatOnly.requests[2]!)).toContain(MARK)
  })

  it("runs its exec_command tool for a model behind an OpenAI Responses upstream, its request as it sent it", async () => {
    responses.reset()
    responses.handle((request) =>
      toolOutputs(request).includes(MARK)
        ? reply.sse(
          responsesStream({
            id: "msg_up",
            type: "message",
            status: "completed",
            role: "assistant",
            content: [{ type: "output_text", text: `Printed ${MARK}.`, annotations: [] }]
          }, { delta: `Printed ${MARK}.` }),
          { named: true, end: "end" }
        )
        : reply.sse(
          responsesStream({
            id: "fc_up",
            type: "function_call",
            status: "completed",
            call_id: "call_exec",
            name: "exec_command",
            arguments: COMMAND
          }, { delta: COMMAND }),
          { named: true, end: "end" }
        )
    )
    const run = await runCodex({
      baseUrl: gw.url,
      apiKey: key,
      model: "openai/gpt-5-codex",
      prompt: "print the marker"
    })
    expect(run.exitCode, run.stderr).toBe(0)
    expect(run.stdout).toContain(`Printed ${MARK}.`)
    const [first, second] = responses.requests
    expect(first?.path).toBe("/v1/responses")
    expect(first?.headers["authorization"]).toBe("Bearer sk-openai-fake")
    // what only the Responses format carries reached the upstream untouched
    const body = first!.body
    expect(body.model).toBe("gpt-5-codex")
    expect(body["store"]).toBe(false)
    expect(body["include"]).toEqual(["reasoning.encrypted_content"])
    expect(typeof body["prompt_cache_key"]).toBe("string")
    expect(body["client_metadata"]).toBeTypeOf("object")
    expect((body.tools as Array<Json>).map((tool) => tool["type"])).toEqual(
      expect.arrayContaining(["function", "namespace", "web_search"])
    )
    expect(toolOutputs(second!)).toContain(MARK)
  })
})
