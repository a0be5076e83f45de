/**
 * Helpers for the shared-tools end-to-end suite (`test/e2e/SharedTools*.test.ts`): admin set-up of
 * orgs, keys and tool settings; a fake-upstream script answered per request number, whole or streamed as the gateway asks; and typed
 * readers for what the client gets back (the gateway's `svc_tool_runs` / `svc_pending_id` included).
 */
import { expect } from "vitest"
import {
  chunk,
  completion,
  type FakeUpstream,
  type Reply,
  reply,
  type ToolCallBody,
  type UpstreamRequest,
  usage as usageBody,
  type UsageBody,
  usageChunk
} from "./FakeUpstream.ts"
import { sseData, type TestGateway } from "./TestGateway.ts"

// ---------------------------------------------------------------------------------------------------
// Admin set-up

export interface OrgToolSetting {
  readonly id: string
  readonly activated: boolean
  readonly hydrate_org: boolean
  readonly hydrate_key_ids: ReadonlyArray<string>
}

export interface KeyInfo {
  readonly id: string
  readonly org_id: string
  readonly name: string
  readonly allowed_svc_tool_ids: ReadonlyArray<string> | null
  readonly expires_at: string | null
}

export interface Caller {
  readonly orgId: string
  readonly keyId: string
  readonly key: string
}

const suffix = () => Math.random().toString(36).slice(2, 10)

/** A new org; its id. */
export const createOrg = async (gw: TestGateway): Promise<string> => {
  const org = await gw.admin("POST", "/orgs", { name: `shared-tools-${suffix()}` })
  expect(org.status, JSON.stringify(org.json)).toBe(201)
  return String(org.json.id)
}

/** A new key in `orgId`, with an allow-list when `allowed` is given (`null`: every activated tool). */
export const createKey = async (
  gw: TestGateway,
  orgId: string,
  allowed?: ReadonlyArray<string> | null
): Promise<Caller & { readonly info: KeyInfo }> => {
  const created = await gw.admin("POST", `/orgs/${orgId}/keys`, {
    name: `key-${suffix()}`,
    ...(allowed === undefined ? {} : { allowed_svc_tool_ids: allowed })
  })
  expect(created.status, JSON.stringify(created.json)).toBe(201)
  const info = created.json as KeyInfo & { readonly key: string }
  return { orgId, keyId: info.id, key: info.key, info }
}

/** A new org with one key in it. */
export const createCaller = async (gw: TestGateway, allowed?: ReadonlyArray<string> | null): Promise<Caller> =>
  createKey(gw, await createOrg(gw), allowed)

/** `PUT /orgs/{org}/svc-tools/{tool}`; expects 200 and returns the setting. */
export const setOrgTool = async (
  gw: TestGateway,
  orgId: string,
  toolId: string,
  setting: {
    readonly activated: boolean
    readonly hydrate_org?: boolean
    readonly hydrate_key_ids?: ReadonlyArray<string>
  }
): Promise<OrgToolSetting> => {
  const response = await gw.admin("PUT", `/orgs/${orgId}/svc-tools/${toolId}`, setting)
  expect(response.status, JSON.stringify(response.json)).toBe(200)
  return response.json as OrgToolSetting
}

/** Activates each tool for the org (not hydrated). */
export const activate = async (gw: TestGateway, orgId: string, toolIds: ReadonlyArray<string>): Promise<void> => {
  for (const id of toolIds) await setOrgTool(gw, orgId, id, { activated: true })
}

// ---------------------------------------------------------------------------------------------------
// Scripting the fake upstream

/** One model turn: text, tool calls, or both. */
export interface Turn {
  readonly content?: string
  readonly toolCalls?: ReadonlyArray<ToolCallBody>
  readonly usage?: UsageBody
}

/** Splits a string in two halves, so deltas have to be put back together. */
const halves = (text: string): readonly [string, string] => {
  const at = Math.ceil(text.length / 2)
  return [text.slice(0, at), text.slice(at)]
}

/** The chunks of a streamed turn: role, text in two pieces, each tool call in three deltas, finish, usage. */
export const turnChunks = (turn: Turn): ReadonlyArray<Readonly<Record<string, unknown>>> => {
  const calls = turn.toolCalls ?? []
  const text = turn.content === undefined || turn.content === "" ? [] : halves(turn.content).filter((p) => p !== "")
  return [
    chunk({ role: "assistant", content: "" }),
    ...text.map((content) => chunk({ content })),
    ...calls.flatMap((call, index) => {
      const [first, second] = halves(call.function.arguments)
      return [
        chunk({
          tool_calls: [{ index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }]
        }),
        chunk({ tool_calls: [{ index, function: { arguments: first } }] }),
        chunk({ tool_calls: [{ index, function: { arguments: second } }] })
      ]
    }),
    chunk({}, calls.length > 0 ? "tool_calls" : "stop"),
    usageChunk(turn.usage ?? usageBody(5, 3))
  ]
}

/** Answers `turn` whole or as a stream, as the gateway asked. */
export const answer = (turn: Turn, options: { readonly delayMs?: number } = {}) => (request: UpstreamRequest): Reply =>
  request.body.stream === true
    ? reply.sse(turnChunks(turn), options.delayMs === undefined ? {} : { delayMs: options.delayMs })
    : reply.json(completion({
      ...(turn.content === undefined ? {} : { content: turn.content }),
      ...(turn.toolCalls === undefined ? {} : { toolCalls: turn.toolCalls }),
      ...(turn.usage === undefined ? {} : { usage: turn.usage })
    }))

export type Step = Turn | ((request: UpstreamRequest) => Reply)

/**
 * Answers the n-th chat request from now with `steps[n - 1]`; any request past the script gets a 500,
 * so a test sees an unexpected extra model call. Also forgets the requests recorded so far.
 */
export const script = (upstream: FakeUpstream, steps: ReadonlyArray<Step>): void => {
  upstream.reset()
  let n = 0
  upstream.handle((request) => {
    const step = steps[n++]
    if (step === undefined) return reply.error(500, `unscripted upstream request #${n}`, { type: "server_error" })
    return typeof step === "function" ? step(request) : answer(step)(request)
  })
}

/** A model that calls `toolId` on every turn, with a fresh call id each time. */
export const alwaysCalls = (upstream: FakeUpstream, toolId: string): void => {
  upstream.reset()
  let n = 0
  upstream.handle((request) => {
    n++
    return answer({
      toolCalls: [{ id: `call_loop_${n}`, type: "function", function: { name: toolId, arguments: "{}" } }]
    })(request)
  })
}

/** The messages of the n-th (1-based) chat request the upstream received. */
export const messagesOf = (upstream: FakeUpstream, n: number): ReadonlyArray<Readonly<Record<string, unknown>>> => {
  const request = upstream.chatRequests()[n - 1]
  expect(request, `upstream request #${n}`).toBeDefined()
  return request?.body.messages ?? []
}

/** The function names in the `tools` the n-th (1-based) chat request offered; `undefined` when none. */
export const toolNamesOf = (upstream: FakeUpstream, n: number): ReadonlyArray<string> | undefined => {
  const request = upstream.chatRequests()[n - 1]
  expect(request, `upstream request #${n}`).toBeDefined()
  const tools = request?.body.tools as ReadonlyArray<{ readonly function: { readonly name: string } }> | undefined
  return tools?.map((tool) => tool.function.name)
}

// ---------------------------------------------------------------------------------------------------
// What the client gets back

export interface ToolRun {
  readonly id: string
  readonly outcome: string
  readonly round: number
}

export interface WireToolCall {
  readonly id: string
  readonly type: string
  readonly function: { readonly name: string; readonly arguments: string }
}

export interface WireUsage {
  readonly prompt_tokens: number
  readonly completion_tokens: number
  readonly total_tokens: number
}

export interface SharedCompletion {
  readonly id: string
  readonly object: string
  readonly model: string
  readonly choices: ReadonlyArray<{
    readonly index: number
    readonly message: {
      readonly role: string
      readonly content: string | null
      readonly tool_calls?: ReadonlyArray<WireToolCall>
    }
    readonly finish_reason: string | null
  }>
  readonly usage: WireUsage
  readonly svc_tool_runs?: ReadonlyArray<ToolRun>
  readonly svc_pending_id?: string
}

export interface StreamChunk {
  readonly id: string
  readonly object: string
  readonly model: string
  readonly choices: ReadonlyArray<{
    readonly index: number
    readonly delta: {
      readonly role?: string
      readonly content?: string | null
      readonly tool_calls?: ReadonlyArray<{
        readonly index: number
        readonly id?: string
        readonly function?: { readonly name?: string; readonly arguments?: string }
      }>
    }
    readonly finish_reason?: string | null
  }>
  readonly usage?: WireUsage
  readonly svc_tool_runs?: ReadonlyArray<ToolRun>
  readonly svc_pending_id?: string
}

/** A 200 whole completion. */
export const sharedCompletionOf = async (response: Response): Promise<SharedCompletion> => {
  const text = await response.text()
  expect(response.status, text).toBe(200)
  return JSON.parse(text) as SharedCompletion
}

/** A 200 SSE body that ends with `[DONE]`, as chunks. */
export const streamOf = async (response: Response): Promise<ReadonlyArray<StreamChunk>> => {
  const text = await response.text()
  expect(response.status, text).toBe(200)
  expect(response.headers.get("content-type") ?? "").toMatch(/^text\/event-stream/)
  const events = sseData(text)
  expect(events.at(-1), text).toBe("[DONE]")
  return events.slice(0, -1).map((event) => JSON.parse(event) as StreamChunk)
}

/** The text of every content delta, in order. */
export const streamedText = (chunks: ReadonlyArray<StreamChunk>): string =>
  chunks.flatMap((c) => c.choices.map((choice) => choice.delta.content ?? "")).join("")

/** Every tool-call delta the client received. */
export const streamedToolDeltas = (chunks: ReadonlyArray<StreamChunk>) =>
  chunks.flatMap((c) => c.choices.flatMap((choice) => choice.delta.tool_calls ?? []))

/** The finish reasons the client received, in order. */
export const finishReasons = (chunks: ReadonlyArray<StreamChunk>): ReadonlyArray<string> =>
  chunks.flatMap((c) =>
    c.choices.flatMap((choice) => (typeof choice.finish_reason === "string" ? [choice.finish_reason] : []))
  )

/** The `{"error":{...}}` body of a 400 and the like, extra fields allowed (`invalid_svc_tool_ids`). */
export interface SharedToolsError {
  readonly message: string
  readonly type: string
  readonly param: string | null
  readonly code: string | null
  readonly invalid_svc_tool_ids?: ReadonlyArray<string>
}

export const errorOf = async (response: Response, status: number): Promise<SharedToolsError> => {
  const text = await response.text()
  expect(response.status, text).toBe(status)
  expect(response.headers.get("content-type") ?? "").toMatch(/^application\/json/)
  const body = JSON.parse(text) as { readonly error: SharedToolsError }
  expect(Object.keys(body)).toEqual(["error"])
  expect(typeof body.error.message).toBe("string")
  expect(body.error.type).toBe(status >= 500 ? "upstream_error" : "invalid_request_error")
  return body.error
}

/** A tool message as the upstream received it. */
export interface ToolMessage {
  readonly role: "tool"
  readonly tool_call_id: string
  readonly content: string
}

export const toolMessages = (messages: ReadonlyArray<Readonly<Record<string, unknown>>>): ReadonlyArray<ToolMessage> =>
  messages.filter((m): m is Readonly<Record<string, unknown>> & ToolMessage => m["role"] === "tool")

/**
 * OpenAI's rule for a conversation with tools: each assistant message with `tool_calls` is followed by
 * one tool message per call (any order), and every tool message answers a call of that assistant message.
 */
export const expectValidToolConversation = (messages: ReadonlyArray<Readonly<Record<string, unknown>>>): void => {
  for (const [i, message] of messages.entries()) {
    if (message["role"] === "tool") {
      let at = i - 1
      while (at >= 0 && messages[at]?.["role"] === "tool") at--
      const owner = messages[at]
      const calls = (owner?.["tool_calls"] ?? []) as ReadonlyArray<WireToolCall>
      expect(owner?.["role"], `tool message #${i} follows no assistant message`).toBe("assistant")
      expect(calls.map((call) => call.id), `tool message #${i} answers no call`).toContain(message["tool_call_id"])
      continue
    }
    const calls = message["tool_calls"] as ReadonlyArray<WireToolCall> | undefined
    if (message["role"] !== "assistant" || calls === undefined || calls.length === 0) continue
    const answered: Array<unknown> = []
    for (let j = i + 1; messages[j]?.["role"] === "tool"; j++) answered.push(messages[j]?.["tool_call_id"])
    expect([...answered].sort(), `results of assistant message #${i}`).toEqual(calls.map((call) => call.id).sort())
  }
}
