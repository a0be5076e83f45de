/**
 * The fuzz suite: 10,000 generated request bodies and headers, from a fixed seed, to each inbound
 * endpoint (chat completions, Anthropic Messages and its token count, Responses): random JSON shapes,
 * a valid request with one field of the wrong type (every field in turn), huge strings, deep nesting,
 * `__proto__` keys, invalid UTF-8, NUL bytes, numbers such as 1e309, thousands of messages, tools or
 * tags, and odd headers. Asserted: no 5xx, no crash (the gateway answers a plain request afterwards),
 * every refusal a 4xx in the endpoint's own error shape (a body that happens to be valid is answered
 * by `local/echo`), and the heap back within 32 MiB of where it started once collected.
 */
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startGateway, type TestGateway } from "../utils/TestGateway.ts"

const TOTAL = Number(process.env["FUZZ_TOTAL"] ?? 10_000)
const CONCURRENCY = 16

/** mulberry32: the same bodies on every run, so a failure can be replayed from its index. */
const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

type Endpoint = "chat" | "messages" | "count" | "responses"
const PATHS: Record<Endpoint, string> = {
  chat: "/v1/chat/completions",
  messages: "/v1/messages",
  count: "/v1/messages/count_tokens",
  responses: "/v1/responses"
}

const valid = (endpoint: Endpoint): Record<string, unknown> => {
  switch (endpoint) {
    case "chat":
      return {
        model: "local/echo",
        messages: [{ role: "system", content: "be brief" }, { role: "user", content: "hi" }],
        max_tokens: 16,
        temperature: 0.5,
        stream: false,
        tools: [{ type: "function", function: { name: "f", parameters: { type: "object" } } }],
        tool_choice: "auto",
        svc_tool_ids: [],
        tags: ["a"]
      }
    case "messages":
    case "count":
      return {
        model: "local/echo",
        max_tokens: 16,
        system: "be brief",
        messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
        tools: [{ name: "f", input_schema: { type: "object" } }],
        stream: false,
        metadata: { user_id: "u" }
      }
    case "responses":
      return {
        model: "local/echo",
        input: [{ role: "user", content: [{ type: "input_text", text: "hi" }] }],
        instructions: "be brief",
        max_output_tokens: 16,
        tools: [{ type: "function", name: "f", parameters: { type: "object" } }],
        stream: false
      }
  }
}

interface Case {
  readonly endpoint: Endpoint
  readonly body: string | Uint8Array
  readonly headers: Record<string, string>
  readonly what: string
}

const makeCase = (random: () => number, index: number, key: string): Case => {
  const int = (n: number) => Math.floor(random() * n)
  const pick = <A>(items: ReadonlyArray<A>): A => items[int(items.length)]!
  const endpoint = pick(["chat", "messages", "count", "responses"] as const)
  const randomString = (max: number) => {
    const n = int(max)
    let s = ""
    for (let i = 0; i < n; i++) s += String.fromCharCode(pick([int(128), int(0x10000), 0, 0xd800 + int(0x800)]))
    return s
  }
  const randomValue = (depth: number): unknown => {
    switch (depth <= 0 ? int(5) : int(8)) {
      case 0:
        return null
      case 1:
        return random() < 0.5
      case 2:
        return pick([0, -1, 1.5, 2 ** 53 + 1, -0, 1e300, Number.MAX_SAFE_INTEGER, int(1000)])
      case 3:
        return randomString(40)
      case 4:
        return pick(["", "user", "assistant", "tool", "system", "local/echo", "auto", "none", "required"])
      case 5:
        return Array.from({ length: int(4) }, () => randomValue(depth - 1))
      default: {
        const out: Record<string, unknown> = {}
        for (let i = 0; i < int(5); i++) {
          out[pick(["role", "content", "type", "text", "name", randomString(8)])] = randomValue(depth - 1)
        }
        return out
      }
    }
  }
  const base = valid(endpoint)
  const headers: Record<string, string> = {
    "content-type": "application/json",
    authorization: `Bearer ${key}`,
    "x-api-key": key
  }
  const kind = int(12)
  const json = (value: unknown, what: string): Case => ({ endpoint, body: JSON.stringify(value), headers, what })
  switch (kind) {
    case 0:
      return json(randomValue(4), "a random JSON value")
    case 1:
    case 2:
    case 3: {
      // one field of a valid request with a value of another type, every field in turn
      const fields = Object.keys(base)
      const field = fields[index % fields.length]!
      return json({ ...base, [field]: randomValue(3) }, `${field} of a wrong type`)
    }
    case 4: {
      // inside the conversation: a message's or part's field of a wrong type
      const body = structuredClone(base) as any
      const list = body.messages ?? body.input
      const target = list[0]
      const field = pick(Object.keys(target))
      target[field] = randomValue(2)
      const part = Array.isArray(target.content) ? target.content[0] : undefined
      if (random() < 0.5 && typeof part === "object" && part !== null) part[pick(["type", "text"])] = randomValue(2)
      return json(body, `messages[0].${field} of a wrong type`)
    }
    case 5: {
      const size = pick([100_000, 1_000_000, 3_000_000])
      const huge = "x".repeat(size)
      const where = pick(["model", "text", "tag", "key"])
      if (where === "key") return json({ ...base, [huge.slice(0, 100_000)]: 1 }, "a huge key")
      if (where === "tag") return json({ ...base, tags: [huge] }, "a huge tag")
      if (where === "model") return json({ ...base, model: huge }, "a huge model")
      const body = structuredClone(base) as any
      const list = body.messages ?? body.input
      list[list.length - 1].content = huge
      return json(body, "a huge text")
    }
    case 6: {
      const depth = pick([100, 1_000, 10_000, 100_000])
      const nested = "[".repeat(depth) + "]".repeat(depth)
      const where = pick(["top", "content", "tool"])
      const text = where === "top"
        ? nested
        : where === "content"
        ? JSON.stringify(base).replace("\"hi\"", nested)
        : JSON.stringify(base).replace("{\"type\":\"object\"}", `{"type":"object","properties":${nested}}`)
      return { endpoint, body: text, headers, what: `${depth}-deep nesting (${where})` }
    }
    case 7: {
      const text = pick([
        `{"__proto__":{"model":"local/echo","admin":true},${JSON.stringify(base).slice(1)}`,
        JSON.stringify(base).replace(
          "\"stream\":false",
          "\"stream\":false,\"__proto__\":{\"stream\":true},\"constructor\":{\"prototype\":{\"x\":1}}"
        ),
        JSON.stringify(base).replace("\"hi\"", "{\"__proto__\":{\"toString\":1}}")
      ])
      return { endpoint, body: text, headers, what: "__proto__ keys" }
    }
    case 8: {
      const text = JSON.stringify(base)
      const at = text.indexOf("hi")
      const bytes = Buffer.concat([
        Buffer.from(text.slice(0, at)),
        Buffer.from(pick([[0xff, 0xfe], [0xc3], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0x80]])),
        Buffer.from(text.slice(at))
      ])
      return { endpoint, body: new Uint8Array(bytes), headers, what: "invalid UTF-8" }
    }
    case 9: {
      const text = pick([
        JSON.stringify(base).replace("\"hi\"", "\"h\\u0000i\""),
        JSON.stringify(base).replace("\"hi\"", "\"h\u0000i\""),
        JSON.stringify({ ...base, model: "local/echo\u0000" }),
        JSON.stringify(base).replace(
          "16",
          pick(["1e309", "-1e309", "1e-400", "123456789012345678901234567890", "-0", "0.5", "NaN", "Infinity"])
        ),
        `${JSON.stringify(base)}\u0000`,
        "",
        "null",
        "{",
        pick(["[]", "\"text\"", "42", "true"])
      ])
      return { endpoint, body: text, headers, what: "NUL bytes, odd numbers or no object" }
    }
    case 10: {
      const n = pick([1_000, 3_000, 10_000])
      const body = structuredClone(base) as any
      const what = pick(["messages", "tools", "tags"])
      if (what === "messages") {
        const list = body.messages !== undefined ? "messages" : "input"
        body[list] = Array.from({ length: n }, (_, i) =>
          endpoint === "responses"
            ? { role: i % 2 === 0 ? "user" : "assistant", content: `m${i}` }
            : { role: i % 2 === 0 ? "user" : "assistant", content: `m${i}` })
        body[list].push(endpoint === "responses" ? { role: "user", content: "end" } : { role: "user", content: "end" })
      } else if (what === "tools") {
        body.tools = Array.from({ length: n }, (_, i) =>
          endpoint === "chat"
            ? { type: "function", function: { name: `t${i}`, parameters: { type: "object" } } }
            : endpoint === "responses"
            ? { type: "function", name: `t${i}`, parameters: { type: "object" } }
            : { name: `t${i}`, input_schema: { type: "object" } })
      } else {
        body.tags = Array.from({ length: n }, (_, i) => `tag${i}`)
      }
      return json(body, `${n} ${what}`)
    }
    default: {
      // odd headers on a valid body
      const odd = pick([
        { "x-svc-tags": randomString(300) },
        { "x-svc-compression": randomString(10) },
        { "x-svc-tags": Array.from({ length: 5_000 }, (_, i) => `t${i}`).join(",") },
        {
          "content-type": pick([
            "text/plain",
            "application/x-www-form-urlencoded",
            "",
            "application/json; charset=latin1"
          ])
        },
        { "x-request-id": "x".repeat(4_000) },
        { "anthropic-version": randomString(20), "anthropic-beta": randomString(40) },
        { authorization: `Bearer ${randomString(50)}`, "x-api-key": randomString(50) }
      ])
      const cleaned = Object.fromEntries(Object.entries(odd).map(([k, v]) => [k, v.replace(/[^\x20-\x7e]/g, "?")]))
      return {
        endpoint,
        body: JSON.stringify(base),
        headers: { ...headers, ...cleaned },
        what: `odd headers ${Object.keys(odd).join(",")}`
      }
    }
  }
}

/** Whether a refusal has the endpoint's own error shape. */
const hasErrorShape = (endpoint: Endpoint, body: any): boolean =>
  endpoint === "messages" || endpoint === "count"
    ? body?.type === "error" && typeof body?.error?.type === "string" && typeof body?.error?.message === "string"
    : typeof body?.error?.type === "string" && typeof body?.error?.message === "string"

const heapAfterGc = () => {
  setFlagsFromString("--expose-gc")
  const gc = runInNewContext("gc") as () => void
  gc()
  gc()
  return process.memoryUsage().heapUsed
}

describe("fuzzing every inbound endpoint", () => {
  let gw: TestGateway
  let key: string

  beforeAll(async () => {
    gw = await startGateway({ GATEWAY_LOG_QUEUE_LIMIT: "200000" })
    key = (await gw.newKey()).key
  }, 30_000)
  afterAll(async () => {
    await gw?.close()
  })

  it(
    `${TOTAL} generated requests: no 5xx, every refusal a 4xx in the client's shape, memory back to its level`,
    async () => {
      const random = prng(20261126)
      // warm up, so the heap's level includes what the first requests set up once
      for (const endpoint of Object.keys(PATHS) as Array<Endpoint>) {
        await fetch(`${gw.url}${PATHS[endpoint]}`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${key}`, "x-api-key": key },
          body: JSON.stringify(valid(endpoint))
        }).then((r) => r.text())
      }
      const heapBefore = heapAfterGc()
      const statuses = new Map<number, number>()
      const failures: Array<string> = []
      let next = 0
      const worker = async () => {
        while (next < TOTAL) {
          const index = next++
          const c = makeCase(random, index, key)
          if (process.env["FUZZ_TRACE"] !== undefined) console.log(`#${index} ${c.endpoint} ${c.what}`)
          let status: number
          let text: string
          try {
            const response = await fetch(`${gw.url}${PATHS[c.endpoint]}`, {
              method: "POST",
              headers: c.headers,
              body: c.body,
              signal: AbortSignal.timeout(30_000)
            })
            status = response.status
            text = await response.text()
          } catch (error) {
            failures.push(`#${index} ${c.endpoint} ${c.what}: no answer (${String(error)})`)
            continue
          }
          statuses.set(status, (statuses.get(status) ?? 0) + 1)
          if (status >= 500) failures.push(`#${index} ${c.endpoint} ${c.what}: ${status} ${text.slice(0, 200)}`)
          else if (status >= 400) {
            let body: unknown
            try {
              body = JSON.parse(text)
            } catch {
              body = undefined
            }
            if (!hasErrorShape(c.endpoint, body)) {
              failures.push(
                `#${index} ${c.endpoint} ${c.what}: ${status} not in the client's shape: ${text.slice(0, 200)}`
              )
            }
          } else if (status !== 200) failures.push(`#${index} ${c.endpoint} ${c.what}: unexpected ${status}`)
        }
      }
      await Promise.all(Array.from({ length: CONCURRENCY }, worker))
      const heapAfter = heapAfterGc()
      const summary = [...statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`).join(", ")
      console.log(
        `fuzz: ${TOTAL} requests; ${summary}; heap ${(heapBefore / 2 ** 20).toFixed(1)} → ${
          (heapAfter / 2 ** 20).toFixed(1)
        } MiB`
      )
      expect(failures.slice(0, 20), summary).toEqual([])
      expect([...statuses.values()].reduce((a, b) => a + b, 0)).toBe(TOTAL)
      // the refusals are many kinds, not one repeated
      expect([...statuses.keys()].filter((s) => s >= 400).length).toBeGreaterThanOrEqual(3)
      // still alive and answering
      const alive = await fetch(`${gw.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body: JSON.stringify(valid("chat"))
      })
      expect(alive.status).toBe(200)
      expect(heapAfter - heapBefore).toBeLessThan(32 * 2 ** 20)
    },
    300_000
  )
})
