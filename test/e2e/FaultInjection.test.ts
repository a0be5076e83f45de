/**
 * The fault-injection matrix: a fake upstream on 127.0.0.1 that refuses, resets, stalls, answers 429
 * (with and without `Retry-After`), 500, 503, 529, 401, malformed JSON, cuts a stream before and after
 * its first token, or drips slowly; each fault streamed and not, with a backup model (`fake/primary` →
 * `fake/backup`) and alone (`fake/solo`), on every inbound format (chat completions, Anthropic Messages,
 * Responses). Each case asserts the outcome the README's "Retries and failover" table gives (the backup's
 * answer, the primary's own, or a clear error in the client's format: a status before the stream, an
 * error event after it began) and how many calls the faulty upstream got.
 *
 * Circuit breakers are off here so every case sees the same upstream (they are tested on the test clock
 * in test/unit/core/Failover.test.ts and at the end of this file).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import {
  chunk,
  completion,
  fakeGatewayEnv,
  type FakeUpstream,
  refusedUrl,
  type Reply,
  reply,
  startFakeUpstream,
  textStream
} from "../utils/FakeUpstream.ts"
import { postChat, startGateway, type TestGateway } from "../utils/TestGateway.ts"

type Format = "chat" | "messages" | "responses"

/** The request of each inbound format, and where it goes. */
const request = (format: Format, model: string, stream: boolean): { readonly path: string; readonly body: unknown } => {
  switch (format) {
    case "chat":
      return { path: "/v1/chat/completions", body: { model, stream, messages: [{ role: "user", content: "hi" }] } }
    case "messages":
      return {
        path: "/v1/messages",
        body: { model, stream, max_tokens: 64, messages: [{ role: "user", content: "hi" }] }
      }
    case "responses":
      return { path: "/v1/responses", body: { model, stream, input: "hi" } }
  }
}

interface SseFrame {
  readonly event: string | undefined
  readonly data: string
}

const framesOf = (text: string): ReadonlyArray<SseFrame> =>
  text.split("\n\n").filter((block) => block.trim() !== "").map((block) => {
    let event: string | undefined
    const data: Array<string> = []
    for (const line of block.split("\n")) {
      if (line.startsWith("event:")) event = line.slice(6).trim()
      else if (line.startsWith("data:")) data.push(line.slice(5).trimStart())
    }
    return { event, data: data.join("\n") }
  })

/** The text a whole answer carries, in its format. */
const wholeText = (format: Format, body: any): string => {
  switch (format) {
    case "chat":
      return body.choices[0].message.content
    case "messages":
      return body.content.filter((b: any) => b.type === "text").map((b: any) => b.text).join("")
    case "responses":
      return body.output.flatMap((item: any) => item.content ?? []).map((part: any) => part.text ?? "").join("")
  }
}

/** The text of a stream, and whether it ended normally (its format's terminator) or with an error event. */
const streamed = (
  format: Format,
  frames: ReadonlyArray<SseFrame>
): { text: string; end: "normal" | "error" | "none" } => {
  const json = (frame: SseFrame) => {
    try {
      return JSON.parse(frame.data)
    } catch {
      return undefined
    }
  }
  const last = frames.at(-1)
  switch (format) {
    case "chat": {
      const text = frames.map(json).map((c) => c?.choices?.[0]?.delta?.content ?? "").join("")
      const end = last?.data === "[DONE]"
        ? "normal"
        : last !== undefined && json(last)?.error !== undefined
        ? "error"
        : "none"
      return { text, end }
    }
    case "messages": {
      const text = frames.filter((f) => f.event === "content_block_delta").map((f) => json(f)?.delta?.text ?? "").join(
        ""
      )
      return { text, end: last?.event === "message_stop" ? "normal" : last?.event === "error" ? "error" : "none" }
    }
    case "responses": {
      const text = frames.filter((f) => f.event === "response.output_text.delta").map((f) => json(f)?.delta ?? "").join(
        ""
      )
      return {
        text,
        end: last?.event === "response.completed" ? "normal" : last?.event === "response.failed" ? "error" : "none"
      }
    }
  }
}

/** Whether a refusal body has the client format's error shape. */
const isErrorShape = (format: Format, body: any): boolean =>
  format === "messages"
    ? body?.type === "error" && typeof body?.error?.type === "string" && typeof body?.error?.message === "string"
    : typeof body?.error?.message === "string" && typeof body?.error?.type === "string"

/** What the client gets. */
type Outcome =
  | { readonly kind: "answer"; readonly from: "primary" | "backup" }
  | { readonly kind: "refused"; readonly status: number }
  | { readonly kind: "stream-error" }

interface Fault {
  readonly name: string
  /** The faulty upstream's reply; undefined: the primary is a closed port. */
  readonly reply: ((stream: boolean) => Reply) | undefined
  /** Streamed only (a cut or stall inside a stream). */
  readonly streamOnly?: boolean
  /** Calls the faulty target gets before the gateway moves on or gives up. */
  readonly calls: number
  /** Alone (no backup): what the client gets. */
  readonly alone: Outcome
  /**
   * Alone, on Anthropic Messages: the upstream's own status, as Claude Code reads it (the Messages
   * dialect passes an upstream's failure on as it came), when it differs from `alone`'s.
   */
  readonly messagesStatus?: number
  /** With a backup; default: the backup answers. */
  readonly withBackup?: Outcome
}

const answerOf = (name: string, stream: boolean): Reply =>
  stream ? reply.sse(textStream([`from `, name])) : reply.json(completion({ content: `from ${name}` }))

const role = chunk({ role: "assistant", content: "" })

const FAULTS: ReadonlyArray<Fault> = [
  { name: "connection refused", reply: undefined, calls: 0, alone: { kind: "refused", status: 502 } },
  { name: "reset before headers", reply: () => reply.destroy, calls: 1, alone: { kind: "refused", status: 502 } },
  { name: "stall before headers", reply: () => reply.hang, calls: 1, alone: { kind: "refused", status: 504 } },
  {
    name: "429 without Retry-After",
    reply: () => reply.error(429, "Slow down.", { type: "requests" }),
    calls: 3,
    alone: { kind: "refused", status: 429 }
  },
  {
    name: "429 with Retry-After: 0",
    reply: () => reply.error(429, "Slow down.", { type: "requests", headers: { "retry-after": "0" } }),
    calls: 3,
    alone: { kind: "refused", status: 429 }
  },
  {
    name: "500",
    reply: () => reply.error(500, "Internal error.", { type: "server_error" }),
    calls: 3,
    alone: { kind: "refused", status: 502 },
    messagesStatus: 500
  },
  {
    name: "503",
    reply: () => reply.error(503, "Overloaded.", { type: "server_error" }),
    calls: 3,
    alone: { kind: "refused", status: 502 },
    messagesStatus: 503
  },
  {
    name: "529",
    reply: () => reply.error(529, "Overloaded.", { type: "overloaded_error" }),
    calls: 3,
    alone: { kind: "refused", status: 502 },
    messagesStatus: 529
  },
  {
    name: "401 (the gateway's own key)",
    reply: () => reply.error(401, "Invalid API key.", { code: "invalid_api_key" }),
    calls: 1,
    alone: { kind: "refused", status: 502 }
  },
  {
    name: "malformed JSON",
    reply: (stream) => stream ? reply.sse([{ raw: "{\"choices\": [oops" }]) : reply.json("{\"choices\": [oops"),
    calls: 1,
    alone: { kind: "refused", status: 502 }
  },
  {
    name: "stream cut before its first token",
    reply: () => reply.sse([role], { end: "destroy" }),
    streamOnly: true,
    calls: 1,
    alone: { kind: "refused", status: 502 }
  },
  {
    name: "stream ended without its terminator before a token",
    reply: () => reply.sse([role], { end: "end" }),
    streamOnly: true,
    calls: 1,
    alone: { kind: "refused", status: 502 }
  },
  {
    name: "stream cut after its first token",
    reply: () => reply.sse([role, chunk({ content: "partial" })], { end: "destroy" }),
    streamOnly: true,
    calls: 1,
    alone: { kind: "stream-error" },
    withBackup: { kind: "stream-error" }
  },
  {
    name: "stream ended without its terminator after a token",
    reply: () => reply.sse([role, chunk({ content: "partial" })], { end: "end" }),
    streamOnly: true,
    calls: 1,
    alone: { kind: "stream-error" },
    withBackup: { kind: "stream-error" }
  },
  {
    name: "stall mid-stream",
    reply: () => reply.sse([role, chunk({ content: "partial" })], { end: "hang" }),
    streamOnly: true,
    calls: 1,
    alone: { kind: "stream-error" },
    withBackup: { kind: "stream-error" }
  },
  {
    name: "slow drip",
    reply: (stream) =>
      stream ? reply.sse(textStream(["from ", "primary"]), { delayMs: 120 }) : answerOf("primary", false),
    calls: 1,
    alone: { kind: "answer", from: "primary" },
    withBackup: { kind: "answer", from: "primary" }
  }
]

describe("fault injection: every fault, streamed and not, with and without a backup, on every inbound format", () => {
  let gw: TestGateway
  let upstream: FakeUpstream
  let key: string

  beforeAll(async () => {
    upstream = await startFakeUpstream()
    const dead = await refusedUrl()
    gw = await startGateway(fakeGatewayEnv(upstream, {
      providers: { dead: { adapter: "openai-compatible", base_url: `${dead}/v1`, api_key_env: "FAKE_KEY" } },
      fallbacks: { "fake/primary": ["fake/backup"], "dead/primary": ["fake/backup"] },
      env: {
        GATEWAY_UPSTREAM_FIRST_BYTE_TIMEOUT: "300 millis",
        GATEWAY_UPSTREAM_IDLE_TIMEOUT: "300 millis",
        GATEWAY_UPSTREAM_RETRY_BACKOFF: "5 millis",
        GATEWAY_CIRCUIT_FAILURES: "0"
      }
    }))
    key = (await gw.newKey()).key
  }, 30_000)
  afterAll(async () => {
    await gw?.close()
    await upstream?.close()
  })
  beforeEach(() => upstream.reset())

  for (const fault of FAULTS) {
    for (const stream of fault.streamOnly === true ? [true] : [false, true]) {
      for (const backup of [true, false]) {
        for (const format of ["chat", "messages", "responses"] as const) {
          const expected: Outcome = backup
            ? fault.withBackup ?? { kind: "answer", from: "backup" }
            : format === "messages" && fault.messagesStatus !== undefined
            ? { kind: "refused", status: fault.messagesStatus }
            : fault.alone
          const label = `${fault.name}, ${stream ? "streamed" : "whole"}, ${
            backup ? "with a backup" : "alone"
          }, ${format}: ${
            expected.kind === "refused"
              ? expected.status
              : expected.kind === "answer"
              ? `${expected.from} answers`
              : "error event"
          }`
          it(label, async () => {
            const faulty = backup ? "primary" : "solo"
            const model = fault.reply === undefined ? `dead/${faulty}` : `fake/${faulty}`
            upstream.handle((req) =>
              req.body.model === "backup" || fault.reply === undefined
                ? answerOf("backup", req.body.stream === true)
                : fault.reply(req.body.stream === true)
            )
            const { body, path } = request(format, model, stream)
            const response = await postChat(gw.url, body, { key, path, headers: { "x-api-key": key } })
            const faultyCalls = upstream.chatRequests().filter((r) => r.body.model === faulty).length

            if (expected.kind === "refused") {
              expect(response.status).toBe(expected.status)
              expect(isErrorShape(format, await response.json())).toBe(true)
            } else if (!stream) {
              expect(response.status).toBe(200)
              expect(wholeText(format, await response.json())).toBe(
                `from ${expected.kind === "answer" ? expected.from : ""}`
              )
            } else {
              expect(response.status).toBe(200)
              const seen = streamed(format, framesOf(await response.text()))
              if (expected.kind === "answer") {
                expect(seen).toEqual({ text: `from ${expected.from}`, end: "normal" })
              } else {
                expect(seen).toEqual({ text: "partial", end: "error" })
              }
            }
            expect(faultyCalls).toBe(fault.calls)
            const backupCalls = upstream.chatRequests().filter((r) => r.body.model === "backup").length
            expect(backupCalls).toBe(expected.kind === "answer" && expected.from === "backup" ? 1 : 0)
          })
        }
      }
    }
  }
})

describe("fault injection: the circuit breaker over real sockets", () => {
  let gw: TestGateway
  let upstream: FakeUpstream
  let key: string

  beforeAll(async () => {
    upstream = await startFakeUpstream()
    gw = await startGateway(fakeGatewayEnv(upstream, {
      fallbacks: { "fake/primary": ["fake/backup"] },
      env: { GATEWAY_UPSTREAM_RETRIES: "0", GATEWAY_CIRCUIT_FAILURES: "3", GATEWAY_CIRCUIT_COOLDOWN: "1 second" }
    }))
    key = (await gw.newKey()).key
  }, 30_000)
  afterAll(async () => {
    await gw?.close()
    await upstream?.close()
  })

  it("a target that failed 3 times in a row is not called again until its cool-down ends, then one probe", async () => {
    let primaryUp = false
    upstream.handle((req) =>
      req.body.model === "backup" || primaryUp
        ? answerOf(String(req.body.model), false)
        : reply.error(503, "Down.", { type: "server_error" })
    )
    const ask = () => postChat(gw.url, request("chat", "fake/primary", false).body, { key })
    for (let i = 0; i < 30; i++) expect((await ask()).status).toBe(200)
    const primaryCalls = () => upstream.chatRequests().filter((r) => r.body.model === "primary").length
    expect(primaryCalls()).toBe(3)
    expect(await (await fetch(`${gw.url}/metrics`)).text()).toContain(
      `svc_gateway_circuit_state{target="fake/primary"} 2`
    )
    const circuits = await gw.admin("GET", "/circuits")
    expect(circuits.json.data).toEqual([{ target: "fake/primary", state: "open" }])

    primaryUp = true
    await new Promise((resolve) => setTimeout(resolve, 1_100))
    const probe = await ask()
    expect(wholeText("chat", await probe.json())).toBe("from primary")
    expect(primaryCalls()).toBe(4)
    expect((await gw.admin("GET", "/circuits")).json.data).toEqual([{ target: "fake/primary", state: "closed" }])
  })
})
