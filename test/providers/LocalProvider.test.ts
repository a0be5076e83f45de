import { assert, describe, it } from "@effect/vitest"
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base"
import { Effect, Exit, Pull, Random, Scope, Stream } from "effect"
import { openAttempt } from "../../src/core/Attempt.ts"
import type { ChatMessage, Completion, CompletionChunk, ToolDefinition } from "../../src/kernel/Canonical.ts"
import { GEN_AI } from "../../src/observability/GenAi.ts"
import { TracingTest } from "../../src/observability/TracingLayer.ts"
import { LocalProvider, make } from "../../src/providers/local/LocalProvider.ts"
import { splitWords } from "../../src/providers/local/LocalReply.ts"
import type { ProviderCall } from "../../src/providers/Provider.ts"
import { ProviderError, UpstreamStatus } from "../../src/providers/ProviderError.ts"
import { providerStream, streamOf } from "../utils/PullStreams.ts"

const callOf = (messages: ReadonlyArray<ChatMessage>, overrides: Partial<ProviderCall> = {}): ProviderCall => ({
  modelId: "echo",
  messages,
  tools: undefined,
  toolChoice: undefined,
  maxTokens: undefined,
  passthrough: {},
  requestId: "req-local-test",
  ...overrides
})

const tool = (name: string): ToolDefinition => ({
  type: "function",
  function: { name, parameters: { type: "object" } }
})
const tools = [tool("get_weather"), tool("ns.lookup-v2")]
const user = (content: Exclude<ChatMessage["content"], undefined>): ChatMessage => ({ role: "user", content })

const TOOL_CALL_ID = /^call_[A-Za-z0-9]{24}$/

const only = (completion: Completion) => {
  assert.strictEqual(completion.choices.length, 1)
  const choice = completion.choices[0]
  assert.isDefined(choice)
  assert.strictEqual(choice.index, 0)
  assert.strictEqual(choice.message.role, "assistant")
  return choice
}

const contentOf = (chunks: ReadonlyArray<CompletionChunk>): string =>
  chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.delta.content ?? "")).join("")

describe("LocalProvider", () => {
  it.effect("describes itself as the local/echo provider", () =>
    Effect.gen(function*() {
      const provider = yield* make
      assert.strictEqual(provider, LocalProvider)
      assert.strictEqual(provider.name, "local")
      assert.strictEqual(provider.adapter, "local")
      assert.deepStrictEqual(provider.models, ["echo"])
    }))

  describe("echoes the last user message", () => {
    const cases: ReadonlyArray<readonly [string, ReadonlyArray<ChatMessage>, string]> = [
      ["a string", [user("hello there")], "hello there"],
      ["text parts joined with nothing between", [
        user([{ type: "text", text: "hello " }, { type: "image_url", image_url: { url: "x" } }, {
          type: "text",
          text: "world"
        }])
      ], "hello world"],
      ["the last user message, not an earlier one", [
        user("first"),
        { role: "assistant", content: "ok" },
        user("second")
      ], "second"],
      ["the last user message even after an assistant turn", [user("question"), {
        role: "assistant",
        content: "answer"
      }], "question"],
      ["whitespace kept as sent", [user("  spaced\n out  ")], "  spaced\n out  "],
      ["system prompts ignored", [{ role: "system", content: "be nice" }, user("hi")], "hi"],
      ["nothing when there is no user message", [{ role: "system", content: "be nice" }], ""],
      ["nothing for null content", [user(null)], ""]
    ]
    for (const [label, messages, expected] of cases) {
      it.effect(label, () =>
        Effect.gen(function*() {
          const choice = only(yield* LocalProvider.complete(callOf(messages)))
          assert.strictEqual(choice.message.content, expected)
          assert.strictEqual(choice.finish_reason, "stop")
          assert.isUndefined(choice.message.tool_calls)
        }))
    }
  })

  describe("calls a tool when told `call <tool> <json-args>`", () => {
    const cases: ReadonlyArray<readonly [string, string, string, string]> = [
      [
        "args re-serialised compactly",
        `call get_weather {"city": "Paris", "days": [1, 2]}`,
        "get_weather",
        `{"city":"Paris","days":[1,2]}`
      ],
      ["args default to {}", "call get_weather", "get_weather", "{}"],
      [
        "surrounding whitespace ignored",
        "  \n call   get_weather   { \"city\" : \"Oslo\" }  \n",
        "get_weather",
        `{"city":"Oslo"}`
      ],
      ["multi-line args", "call get_weather {\n  \"city\": \"Rome\"\n}", "get_weather", `{"city":"Rome"}`],
      ["dots and dashes in the name", "call ns.lookup-v2 {\"q\":1}", "ns.lookup-v2", `{"q":1}`]
    ]
    for (const [label, text, name, args] of cases) {
      it.effect(label, () =>
        Effect.gen(function*() {
          const choice = only(yield* LocalProvider.complete(callOf([user(text)], { tools })))
          assert.strictEqual(choice.finish_reason, "tool_calls")
          assert.strictEqual(choice.message.content, null)
          const toolCalls = choice.message.tool_calls ?? []
          assert.strictEqual(toolCalls.length, 1)
          const toolCall = toolCalls[0]
          assert.isDefined(toolCall)
          assert.match(toolCall.id, TOOL_CALL_ID)
          assert.deepStrictEqual(toolCall, { id: toolCall.id, type: "function", function: { name, arguments: args } })
        }))
    }

    it.effect("several calls, one `call` line each, in order (arguments may span lines); a tool not offered is left out", () =>
      Effect.gen(function*() {
        const text = "call get_weather {\"city\":\"Paris\"}\ncall ns.lookup-v2 {\n  \"q\": 2\n}\ncall not_offered {}"
        const choice = only(yield* LocalProvider.complete(callOf([user(text)], { tools })))
        const calls = choice.message.tool_calls ?? []
        assert.deepStrictEqual(calls.map((call) => [call.function.name, call.function.arguments]), [[
          "get_weather",
          `{"city":"Paris"}`
        ], ["ns.lookup-v2", `{"q":2}`]])
        assert.match(calls[0]!.id, TOOL_CALL_ID)
        assert.strictEqual(calls[1]!.id, `${calls[0]!.id}_2`)
        const chunks = yield* Stream.runCollect(providerStream(LocalProvider, callOf([user(text)], { tools })))
        const deltas = [...chunks].flatMap((chunk) => chunk.choices.flatMap((c) => c.delta.tool_calls ?? []))
        assert.deepStrictEqual(deltas.map((delta) => [delta.index, delta.function?.name]), [[0, "get_weather"], [
          1,
          "ns.lookup-v2"
        ]])
      }))

    it.effect("a line that is not a command among commands makes the whole message text", () =>
      Effect.gen(function*() {
        const choice = only(yield* LocalProvider.complete(callOf([user("hello\ncall get_weather {}")], { tools })))
        assert.strictEqual(choice.message.content, "hello\ncall get_weather {}")
      }))

    it.effect("also under toolChoice auto, from text parts", () =>
      Effect.gen(function*() {
        const choice = only(
          yield* LocalProvider.complete(callOf(
            [user([{ type: "text", text: "call get_weather " }, { type: "text", text: "{\"city\":\"Lima\"}" }])],
            { tools, toolChoice: "auto" }
          ))
        )
        assert.strictEqual(choice.message.tool_calls?.[0]?.function.arguments, `{"city":"Lima"}`)
      }))

    it.effect("draws a fresh id per call, from Effect's Random", () =>
      Effect.gen(function*() {
        const idOf = LocalProvider.complete(callOf([user("call get_weather")], { tools })).pipe(
          Effect.map((completion) => completion.choices[0]?.message.tool_calls?.[0]?.id)
        )
        const [a, b] = [yield* idOf, yield* idOf]
        assert.notStrictEqual(a, b)
        const seeded = yield* idOf.pipe(Random.withSeed("local"))
        assert.strictEqual(yield* idOf.pipe(Random.withSeed("local")), seeded)
      }))
  })

  describe("echoes instead of calling", () => {
    const cases: ReadonlyArray<readonly [string, ProviderCall, string]> = [
      ["toolChoice none", callOf([user("call get_weather {}")], { tools, toolChoice: "none" }), "call get_weather {}"],
      ["the tool is not offered", callOf([user("call delete_all {}")], { tools }), "call delete_all {}"],
      ["no tools at all", callOf([user("call get_weather")]), "call get_weather"],
      ["the name has other characters", callOf([user("call get/weather")], { tools }), "call get/weather"],
      [
        "the command is not the whole message",
        callOf([user("please call get_weather")], { tools }),
        "please call get_weather"
      ],
      [
        "the last message is not the user's",
        callOf([user("call get_weather"), { role: "assistant", content: "no" }], { tools }),
        "call get_weather"
      ],
      [
        "the args are not JSON",
        callOf([user("call get_weather {city: Paris}")], { tools }),
        "Not calling get_weather: the arguments are not valid JSON: {city: Paris}"
      ],
      [
        "the args are not an object",
        callOf([user("call get_weather [1, 2]")], { tools }),
        "Not calling get_weather: the arguments must be a JSON object: [1, 2]"
      ]
    ]
    for (const [label, call, expected] of cases) {
      it.effect(label, () =>
        Effect.gen(function*() {
          const choice = only(yield* LocalProvider.complete(call))
          assert.strictEqual(choice.message.content, expected)
          assert.strictEqual(choice.finish_reason, "stop")
          assert.isUndefined(choice.message.tool_calls)
        }))
    }
  })

  describe("answers with trailing tool results", () => {
    const asked: ReadonlyArray<ChatMessage> = [
      user("call get_weather"),
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: "{}" } }]
      }
    ]
    const cases: ReadonlyArray<readonly [string, ReadonlyArray<ChatMessage>, string]> = [
      ["one result", [...asked, { role: "tool", tool_call_id: "call_1", content: "sunny, 21C" }], "sunny, 21C"],
      ["several results joined by newlines", [
        ...asked,
        { role: "tool", tool_call_id: "call_1", content: "sunny" },
        { role: "tool", tool_call_id: "call_2", content: [{ type: "text", text: "windy" }] }
      ], "sunny\nwindy"],
      ["only those after the last assistant message", [
        ...asked,
        { role: "tool", tool_call_id: "call_1", content: "old result" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "call_3", type: "function", function: { name: "get_weather", arguments: "{}" } }]
        },
        { role: "tool", tool_call_id: "call_3", content: "new result" }
      ], "new result"]
    ]
    for (const [label, messages, expected] of cases) {
      it.effect(label, () =>
        Effect.gen(function*() {
          const choice = only(yield* LocalProvider.complete(callOf(messages, { tools })))
          assert.strictEqual(choice.message.content, expected)
          assert.strictEqual(choice.finish_reason, "stop")
        }))
    }
  })

  describe("maxTokens cuts the reply to that many words", () => {
    const cases: ReadonlyArray<readonly [string, number, string, "stop" | "length", number]> = [
      ["one two three four", 2, "one two", "length", 2],
      ["  one\n two   three ", 2, "  one\n two", "length", 2],
      ["one two three", 3, "one two three", "stop", 3],
      ["one two three", 10, "one two three", "stop", 3],
      ["one two", 0, "", "length", 0]
    ]
    for (const [text, maxTokens, expected, finish, words] of cases) {
      it.effect(`${JSON.stringify(text)} at ${maxTokens}`, () =>
        Effect.gen(function*() {
          const call = callOf([user(text)], { maxTokens })
          const completion = yield* LocalProvider.complete(call)
          const choice = only(completion)
          assert.strictEqual(choice.message.content, expected)
          assert.strictEqual(choice.finish_reason, finish)
          assert.strictEqual(completion.usage.completionTokens, words)
          const chunks = yield* Stream.runCollect(providerStream(LocalProvider, call))
          assert.strictEqual(contentOf(chunks), expected)
          assert.strictEqual(chunks.at(-2)?.choices[0]?.finish_reason, finish)
        }))
    }

    it.effect("never cuts a tool call, whose arguments would no longer be JSON", () =>
      Effect.gen(function*() {
        const choice = only(
          yield* LocalProvider.complete(
            callOf([user(`call get_weather {"city": "New York"}`)], { tools, maxTokens: 1 })
          )
        )
        assert.strictEqual(choice.finish_reason, "tool_calls")
        assert.strictEqual(choice.message.tool_calls?.[0]?.function.arguments, `{"city":"New York"}`)
      }))
  })

  describe("usage counts words", () => {
    it.effect("over every message text and tool call arguments; the reply's words", () =>
      Effect.gen(function*() {
        const completion = yield* LocalProvider.complete(callOf([
          { role: "system", content: "you are terse" },
          user([{ type: "text", text: "what is" }, { type: "image_url", image_url: { url: "a b c" } }]),
          {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{\"a\": 1}" } }]
          },
          { role: "tool", tool_call_id: "c", content: "forty two" }
        ], { tools }))
        assert.strictEqual(only(completion).message.content, "forty two")
        assert.deepStrictEqual(completion.usage, {
          promptTokens: 3 + 2 + 2 + 2,
          completionTokens: 2,
          totalTokens: 11,
          cachedTokens: 0,
          reasoningTokens: 0
        })
        assert.strictEqual(completion.model, "echo")
        assert.deepStrictEqual(completion.extra, {})
      }))

    const toolCases: ReadonlyArray<readonly [string, number]> = [
      ["call get_weather", 1],
      [`call get_weather {"city": "New York"}`, 2]
    ]
    for (const [text, completionTokens] of toolCases) {
      it.effect(`a tool call counts its arguments' words, at least 1: ${text}`, () =>
        Effect.gen(function*() {
          const { usage } = yield* LocalProvider.complete(callOf([user(text)], { tools }))
          assert.strictEqual(usage.completionTokens, completionTokens)
          assert.strictEqual(usage.promptTokens, text.split(" ").length)
          assert.strictEqual(usage.totalTokens, usage.promptTokens + completionTokens)
        }))
    }
  })

  describe("stream", () => {
    const texts = ["hello there", "  lots   of\n\twhitespace  ", "single", "   ", ""]
    for (const text of texts) {
      it.effect(`gives the same text as complete, a word per chunk: ${JSON.stringify(text)}`, () =>
        Effect.gen(function*() {
          const call = callOf([user(text)])
          const completion = yield* LocalProvider.complete(call)
          const chunks = yield* Stream.runCollect(providerStream(LocalProvider, call))
          assert.strictEqual(contentOf(chunks), only(completion).message.content)
          assert.deepStrictEqual(chunks[0]?.choices, [{
            index: 0,
            delta: { role: "assistant", content: "" },
            finish_reason: null
          }])
          const words = chunks.slice(1, -2).map((chunk) => chunk.choices[0]?.delta.content)
          assert.deepStrictEqual(words, [...splitWords(text)])
          assert.deepStrictEqual(chunks.at(-2)?.choices, [{ index: 0, delta: {}, finish_reason: "stop" }])
          assert.deepStrictEqual(chunks.at(-1)?.choices, [])
          assert.deepStrictEqual(chunks.at(-1)?.usage, completion.usage)
          assert.isTrue(chunks.slice(0, -1).every((chunk) => chunk.usage === undefined))
          assert.isTrue(chunks.every((chunk) => chunk.model === "echo"))
        }))
    }

    it.effect("sends a tool call as one delta at index 0", () =>
      Effect.gen(function*() {
        const chunks = yield* Stream.runCollect(
          providerStream(LocalProvider, callOf([user(`call get_weather {"city": "Paris"}`)], { tools }))
        )
        assert.strictEqual(chunks.length, 4)
        const delta = chunks[1]?.choices[0]?.delta.tool_calls ?? []
        assert.strictEqual(delta.length, 1)
        const id = delta[0]?.id ?? ""
        assert.match(id, TOOL_CALL_ID)
        assert.deepStrictEqual(delta, [{
          index: 0,
          id,
          type: "function",
          function: { name: "get_weather", arguments: `{"city":"Paris"}` }
        }])
        assert.deepStrictEqual(chunks[2]?.choices, [{ index: 0, delta: {}, finish_reason: "tool_calls" }])
        assert.strictEqual(chunks[3]?.usage?.completionTokens, 1)
      }))

    it.effect("opens as one pull holding the whole answer, then is done", () =>
      Effect.gen(function*() {
        const call = callOf([user("one two")])
        const open = LocalProvider.open
        assert.isDefined(open)
        const scope = yield* Scope.make()
        const pull = yield* open(call, scope)
        const first = yield* pull
        assert.deepStrictEqual([...first], yield* Stream.runCollect(providerStream(LocalProvider, call)))
        assert.isTrue(Pull.isDoneCause(yield* Effect.flip(Effect.sandbox(pull))))
        yield* Scope.close(scope, Exit.void)
      }))

    it("its attempt span (the core's) carries the GenAI attributes when traced", async () => {
      const exporter = new InMemorySpanExporter()
      // read inside the layer: shutting the SDK down empties the in-memory exporter
      const { chunks, spans } = await Effect.runPromise(
        Effect.gen(function*() {
          const chunks = yield* Stream.runCollect(streamOf(openAttempt(LocalProvider, callOf([user("traced words")]))))
          return { chunks, spans: exporter.getFinishedSpans() }
        }).pipe(Effect.provide(TracingTest(exporter)))
      )
      assert.strictEqual(contentOf(chunks), "traced words")
      const span = spans.find((s) => s.name === "Provider.stream")
      assert.isDefined(span)
      assert.deepInclude(span.attributes, {
        [GEN_AI.system]: "local",
        [GEN_AI.requestModel]: "echo",
        [GEN_AI.responseModel]: "echo",
        [GEN_AI.outputTokens]: 2
      })
    })

    it.effect("each word is split at the whitespace before it", () =>
      Effect.sync(() => {
        assert.deepStrictEqual(splitWords(" a  b\nc "), [" a", "  b", "\nc "])
      }))
  })

  describe("unknown models", () => {
    // Field by field: chai's deep equality skips an Error's `message`.
    const check = (error: ProviderError) => {
      assert.instanceOf(error, ProviderError)
      assert.strictEqual(error.provider, "local")
      assert.instanceOf(error.reason, UpstreamStatus)
      const { _tag, status, message, code, type, param } = error.reason
      assert.deepStrictEqual({ _tag, status, message, code, type, param }, {
        _tag: "UpstreamStatus",
        status: 404,
        message: "The model 'nope' is not served by the local provider; try local/echo",
        code: "model_not_found",
        type: undefined,
        param: undefined
      })
      assert.isFalse(error.retryable)
    }

    it.effect("fail complete with a 404", () =>
      Effect.gen(function*() {
        check(yield* Effect.flip(LocalProvider.complete(callOf([user("hi")], { modelId: "nope" }))))
      }))

    it.effect("fail stream with a 404", () =>
      Effect.gen(function*() {
        check(
          yield* Effect.flip(
            Stream.runCollect(providerStream(LocalProvider, callOf([user("hi")], { modelId: "nope" })))
          )
        )
      }))
  })
})
