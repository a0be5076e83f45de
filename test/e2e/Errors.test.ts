/**
 * Every way a client's own request can be refused, over raw `fetch`: the status and the exact OpenAI
 * error body `{"error":{"message","type","param","code"}}`, with `param` naming the field at fault.
 * Covers body validation, unreadable and oversized bodies, unknown models, routes and methods, and
 * every API-key failure (missing, invalid, expired, revoked). Upstream failures are in
 * `UpstreamErrors.test.ts`.
 */
import { request } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { completionOf, expectError, postChat, startGateway, type TestGateway } from "../utils/TestGateway.ts"

const BODY_LIMIT = 2048
const hello = { model: "local/echo", messages: [{ role: "user", content: "hello there" }] }
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

describe("request errors", () => {
  let gw: TestGateway
  let key: string

  beforeAll(async () => {
    gw = await startGateway({ GATEWAY_BODY_LIMIT_BYTES: String(BODY_LIMIT) })
    key = (await gw.newKey()).key
  })
  afterAll(() => gw?.close())

  const chat = (body: unknown, options: { readonly path?: string; readonly headers?: Record<string, string> } = {}) =>
    postChat(gw.url, body, { key, ...options })

  describe("400 for each invalid field, naming it in `param`", () => {
    const cases: ReadonlyArray<
      { readonly name: string; readonly body: unknown; readonly param: string; readonly code?: string }
    > = [
      { name: "model not author/model", body: { ...hello, model: "gpt-4o" }, param: "model" },
      { name: "model with a space", body: { ...hello, model: "local/echo two" }, param: "model" },
      { name: "model missing", body: { messages: hello.messages }, param: "model", code: "missing_required_parameter" },
      { name: "model not a string", body: { ...hello, model: 42 }, param: "model" },
      { name: "empty messages", body: { ...hello, messages: [] }, param: "messages" },
      {
        name: "messages missing",
        body: { model: "local/echo" },
        param: "messages",
        code: "missing_required_parameter"
      },
      { name: "messages not an array", body: { ...hello, messages: "hi" }, param: "messages" },
      { name: "bad role", body: { ...hello, messages: [{ role: "robot", content: "hi" }] }, param: "messages[0].role" },
      {
        name: "bad role in a later message",
        body: { ...hello, messages: [{ role: "user", content: "hi" }, { role: "wizard", content: "hi" }] },
        param: "messages[1].role"
      },
      {
        name: "content not text or parts",
        body: { ...hello, messages: [{ role: "user", content: 7 }] },
        param: "messages[0].content"
      },
      { name: "max_tokens 0", body: { ...hello, max_tokens: 0 }, param: "max_tokens" },
      { name: "max_tokens not an integer", body: { ...hello, max_tokens: 1.5 }, param: "max_tokens" },
      { name: "max_tokens a string", body: { ...hello, max_tokens: "10" }, param: "max_tokens" },
      { name: "max_completion_tokens 0", body: { ...hello, max_completion_tokens: 0 }, param: "max_completion_tokens" },
      {
        name: "max_completion_tokens not an integer",
        body: { ...hello, max_completion_tokens: 2.5 },
        param: "max_completion_tokens"
      },
      {
        name: "a user message without content",
        body: { ...hello, messages: [{ role: "user" }] },
        param: "messages[0].content",
        code: "missing_required_parameter"
      },
      {
        name: "a system message whose content is null",
        body: { ...hello, messages: [{ role: "system", content: null }, { role: "user", content: "hi" }] },
        param: "messages[0].content",
        code: "missing_required_parameter"
      },
      {
        name: "a tool message without content",
        body: { ...hello, messages: [{ role: "user", content: "hi" }, { role: "tool", tool_call_id: "c" }] },
        param: "messages[1].content",
        code: "missing_required_parameter"
      },
      {
        name: "an assistant message with neither content nor tool calls",
        body: {
          ...hello,
          messages: [{ role: "user", content: "hi" }, { role: "assistant", content: null }, {
            role: "user",
            content: "?"
          }]
        },
        param: "messages[1].content",
        code: "missing_required_parameter"
      },
      {
        name: "tool_choice any (Anthropic's word, not OpenAI's)",
        body: { ...hello, tool_choice: "any" },
        param: "tool_choice"
      },
      {
        name: "a tool of another type",
        body: { ...hello, tools: [{ type: "web_search", function: { name: "search" } }] },
        param: "tools[0].type"
      },
      {
        name: "a tool without a name",
        body: { ...hello, tools: [{ type: "function", function: { description: "no name" } }] },
        param: "tools[0].function.name"
      },
      { name: "stream not boolean", body: { ...hello, stream: "yes" }, param: "stream" },
      {
        name: "stream_options not an object",
        body: { ...hello, stream: true, stream_options: true },
        param: "stream_options"
      },
      {
        name: "include_usage not boolean",
        body: { ...hello, stream: true, stream_options: { include_usage: "yes" } },
        param: "stream_options.include_usage"
      }
    ]
    for (const c of cases) {
      it(c.name, async () => {
        const error = await expectError(await chat(c.body), 400, {
          type: "invalid_request_error",
          param: c.param,
          ...(c.code === undefined ? {} : { code: c.code })
        })
        // the message names the field too, so a person reading only the message can fix the request
        expect(error.message).toContain(c.param)
      })
    }
  })

  it("invalid JSON is a 400 that says so", async () => {
    const error = await expectError(await chat("{\"model\": \"local/echo\", "), 400, {
      type: "invalid_request_error",
      code: "invalid_json",
      param: null
    })
    expect(error.message).toMatch(/JSON/)
  })

  it("a JSON body that is not an object (array, string, number) is a 400 with no field to name", async () => {
    for (const body of [JSON.stringify([hello]), "\"hello\"", "42", "null"]) {
      const error = await expectError(await chat(body), 400, { type: "invalid_request_error", param: null })
      expect(error.message).toMatch(body === "null" ? /empty|object/i : /object/i)
    }
  })

  it("an empty body is a 400 that asks for a JSON object", async () => {
    const error = await expectError(await chat(""), 400, {
      type: "invalid_request_error",
      code: "invalid_json",
      param: null
    })
    expect(error.message).toMatch(/empty/i)
  })

  it("an unknown author is 404 model_not_found on `model`, saying what would enable it", async () => {
    const error = await expectError(await chat({ ...hello, model: "nobody/some-model" }), 404, {
      type: "invalid_request_error",
      code: "model_not_found",
      param: "model"
    })
    expect(error.message).toContain("nobody/some-model")
    expect(error.message).toContain("add a provider named 'nobody' to the routing file (GATEWAY_CONFIG)")
    const openai = await expectError(await chat({ ...hello, model: "openai/gpt-4o" }), 404, { code: "model_not_found" })
    expect(openai.message).toContain("set OPENAI_API_KEY")
    const ollama = await expectError(await chat({ ...hello, model: "ollama/llama3" }), 404, { code: "model_not_found" })
    expect(ollama.message).toContain("set OLLAMA_BASE_URL")
  })

  it("an assistant message that calls tools needs no content; max_completion_tokens limits local/echo like max_tokens", async () => {
    const withCalls = await completionOf(
      await chat({
        ...hello,
        messages: [
          { role: "user", content: "hi" },
          {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }]
          },
          { role: "tool", tool_call_id: "c1", content: "done" }
        ]
      })
    )
    expect(withCalls.choices[0]?.message.content).toBe("done")
    const limited = await completionOf(
      await chat({ ...hello, messages: [{ role: "user", content: "one two three four" }], max_completion_tokens: 2 })
    )
    expect(limited.choices[0]?.message.content).toBe("one two")
    expect(limited.choices[0]?.finish_reason).toBe("length")
  })

  it("a model the local provider lacks is the same 404 model_not_found", async () => {
    await expectError(await chat({ ...hello, model: "local/other" }), 404, { code: "model_not_found" })
  })

  it("POST /chat/completions (no /v1) answers and refuses the same way", async () => {
    const ok = await completionOf(await chat(hello, { path: "/chat/completions" }))
    expect(ok.choices[0]?.message.content).toBe("hello there")
    await expectError(await chat({ ...hello, messages: [] }, { path: "/chat/completions" }), 400, { param: "messages" })
    await expectError(await postChat(gw.url, hello, { path: "/chat/completions" }), 401, { code: "missing_api_key" })
    await expectError(await chat({ ...hello, model: "nobody/x" }, { path: "/chat/completions" }), 404, {
      code: "model_not_found"
    })
  })

  describe("routes and methods", () => {
    it("an unknown path is 404", async () => {
      await expectError(await fetch(`${gw.url}/v1/nope`), 404, { type: "invalid_request_error", code: "not_found" })
      await expectError(await postChat(gw.url, hello, { key, path: "/v1/embeddings" }), 404, { code: "not_found" })
    })

    it("GET /v1/chat/completions is 405 with allow: POST", async () => {
      for (const path of ["/v1/chat/completions", "/chat/completions"]) {
        const response = await fetch(`${gw.url}${path}`, { headers: { authorization: `Bearer ${key}` } })
        expect(response.headers.get("allow")).toBe("POST")
        const error = await expectError(response, 405, { type: "invalid_request_error", code: "method_not_allowed" })
        expect(error.message).toContain("POST")
      }
    })
  })

  describe("body size and content type", () => {
    const big = { ...hello, messages: [{ role: "user", content: "x".repeat(BODY_LIMIT * 2) }] }

    it("a body over the limit sent as a form (curl -d) is 413", async () => {
      const response = await chat(big, { headers: { "content-type": "application/x-www-form-urlencoded" } })
      const error = await expectError(response, 413, { type: "invalid_request_error", code: "request_too_large" })
      expect(error.message).toContain(String(BODY_LIMIT))
    })

    it("a body over the limit sent as JSON is 413 too", async () => {
      await expectError(await chat(big), 413, { code: "request_too_large" })
    })

    it("a valid body sent with the form content type works", async () => {
      const response = await chat(hello, { headers: { "content-type": "application/x-www-form-urlencoded" } })
      expect((await completionOf(response)).choices[0]?.message.content).toBe("hello there")
    })

    it("a valid body sent with no content type works", async () => {
      const response = await fetch(`${gw.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}` },
        body: new TextEncoder().encode(JSON.stringify(hello))
      })
      expect(response.status).toBe(200)
    })

    /** A POST over node:http: the body in `pieces` (chunked, no length), or after `100 Continue` if asked. */
    const rawPost = (
      pieces: ReadonlyArray<string>,
      headers: Record<string, string> = {}
    ): Promise<{ readonly status: number; readonly body: string; readonly continued: boolean }> =>
      new Promise((resolve, reject) => {
        let continued = false
        const req = request(`${gw.url}/v1/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers }
        }, (res) => {
          let body = ""
          res.setEncoding("utf8")
          res.on("data", (chunk: string) => body += chunk)
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body, continued }))
        })
        req.on("error", reject)
        const send = () => {
          for (const piece of pieces) req.write(piece)
          req.end()
        }
        if (headers["expect"] === undefined) return send()
        req.on("continue", () => {
          continued = true
          send()
        })
      })

    it("a body sent in pieces, with no length, is read whole", async () => {
      const text = JSON.stringify(hello)
      const { body, status } = await rawPost([text.slice(0, 10), text.slice(10, 40), text.slice(40)])
      expect(status).toBe(200)
      expect(JSON.parse(body).choices[0].message.content).toBe("hello there")
    })

    it("a body in pieces that passes the limit without declaring it is 413, and the gateway goes on", async () => {
      const text = JSON.stringify(big)
      const { body, status } = await rawPost([text.slice(0, 1000), text.slice(1000, 2000), text.slice(2000)])
      expect(status).toBe(413)
      expect(JSON.parse(body).error.code).toBe("request_too_large")
      expect((await chat(hello)).status).toBe(200)
    })

    it("a client that asks for 100 Continue gets it, then its answer", async () => {
      const { body, continued, status } = await rawPost([JSON.stringify(hello)], { expect: "100-continue" })
      expect(continued).toBe(true)
      expect(status).toBe(200)
      expect(JSON.parse(body).choices[0].message.content).toBe("hello there")
    })

    it("a body that starts with a byte-order mark is read as JSON", async () => {
      const { body, status } = await rawPost(["\uFEFF" + JSON.stringify(hello)])
      expect(status).toBe(200)
      expect(JSON.parse(body).choices[0].message.content).toBe("hello there")
    })

    it("bytes that are not UTF-8 are read as replacement characters, not refused", async () => {
      const response = await fetch(`${gw.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: Buffer.concat([
          Buffer.from(`{"model":"local/echo","messages":[{"role":"user","content":"a`),
          Buffer.from([0xff, 0xfe]),
          Buffer.from("b\"}]}")
        ])
      })
      expect((await completionOf(response)).choices[0]?.message.content).toBe("a\uFFFD\uFFFDb")
    })
  })

  describe("401 for API keys, each telling the user to generate a new key", () => {
    const NEW_KEY = /generate a new API key/i

    it("no key", async () => {
      const error = await expectError(await postChat(gw.url, hello), 401, {
        type: "authentication_error",
        code: "missing_api_key",
        param: null
      })
      expect(error.message).toMatch(NEW_KEY)
    })

    it("a malformed authorization header", async () => {
      const response = await postChat(gw.url, hello, { headers: { authorization: "Basic dXNlcjpwYXNz" } })
      expect((await expectError(response, 401, { type: "authentication_error" })).message).toMatch(NEW_KEY)
    })

    it("an invalid key", async () => {
      const error = await expectError(await postChat(gw.url, hello, { key: "sk-svc-not-a-real-key" }), 401, {
        type: "authentication_error",
        code: "invalid_api_key"
      })
      expect(error.message).toMatch(NEW_KEY)
    })

    it("the model list needs a key as well", async () => {
      await expectError(await fetch(`${gw.url}/v1/models`), 401, { code: "missing_api_key" })
      const listed = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })
      expect(listed.status).toBe(200)
      const models = (await listed.json()) as { object: string; data: ReadonlyArray<{ id: string }> }
      expect(models.object).toBe("list")
      expect(models.data.map((m) => m.id)).toContain("local/echo")
    })

    it("an expired key", async () => {
      const expiresAt = new Date(Date.now() + 1500)
      const { key: shortLived } = await gw.newKey({ expiresAt: expiresAt.toISOString() })
      expect((await postChat(gw.url, hello, { key: shortLived })).status).toBe(200)
      await sleep(Math.max(0, expiresAt.getTime() - Date.now()) + 200)
      const error = await expectError(await postChat(gw.url, hello, { key: shortLived }), 401, {
        type: "authentication_error",
        code: "expired_api_key"
      })
      expect(error.message).toMatch(NEW_KEY)
    })

    it("a revoked key fails on the very next request", async () => {
      const created = await gw.newKey()
      expect((await postChat(gw.url, hello, { key: created.key })).status).toBe(200) // now cached
      const revoked = await gw.admin("DELETE", `/keys/${created.keyId}`)
      expect(revoked.status).toBe(200)
      expect(revoked.json.revoked_at).toEqual(expect.any(String))
      const error = await expectError(await postChat(gw.url, hello, { key: created.key }), 401, {
        type: "authentication_error",
        code: "revoked_api_key"
      })
      expect(error.message).toMatch(NEW_KEY)
      // streaming requests are refused the same way, before any event
      await expectError(await postChat(gw.url, { ...hello, stream: true }, { key: created.key }), 401, {
        code: "revoked_api_key"
      })
    })
  })
})
