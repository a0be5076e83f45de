/**
 * Routing from a file (`parseRoutingFile`, JSON and YAML) and from the environment alone
 * (`routingFromEnv`). The environment is a `ConfigProvider`, never `process.env`.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Redacted } from "effect"
import type { ProviderSpec } from "../../../src/providers/Adapters.ts"
import { parseRoutingFile, type Routing, routingFromEnv } from "../../../src/providers/RoutingConfig.ts"

const withEnv = (env: Record<string, string>) => Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord(env)))

/** A spec with its key revealed, for comparing. */
const plain = (spec: ProviderSpec) => ({
  ...spec,
  apiKey: spec.apiKey === undefined ? undefined : Redacted.value(spec.apiKey)
})
const byName = (routing: Routing) => new Map(routing.providers.map((spec) => [spec.name, plain(spec)]))

const LOCAL: ReturnType<typeof plain> = {
  name: "local",
  adapter: "local",
  baseUrl: "",
  apiKey: undefined,
  headers: {},
  models: ["echo"]
}

const fileAsJson = JSON.stringify({
  providers: {
    groq: { base_url: "https://api.groq.com/openai/v1", api_key_env: "MY_GROQ_KEY", models: ["llama-3.1-8b-instant"] },
    lab: { adapter: "openai-compatible", base_url: "http://10.0.0.7:8000/v1", headers: { "x-team": "ml" } }
  },
  routes: [
    { match: "team/fast", provider: "groq", model: "llama-3.1-8b-instant" },
    { match: "meta/*", provider: "groq" }
  ],
  fallbacks: { "groq/llama-3.3-70b-versatile": ["lab/qwen", "local/echo"] }
})

const fileAsYaml = `
# the same routing, in YAML
providers:
  groq:
    base_url: https://api.groq.com/openai/v1
    api_key_env: MY_GROQ_KEY
    models: [llama-3.1-8b-instant]
  lab: { adapter: openai-compatible, base_url: "http://10.0.0.7:8000/v1", headers: { x-team: ml } }
routes:
  - { match: team/fast, provider: groq, model: llama-3.1-8b-instant }
  - match: "meta/*"
    provider: groq
fallbacks:
  "groq/llama-3.3-70b-versatile": ["lab/qwen", "local/echo"]
`

const expectedFromFile = (routing: Routing) => {
  const providers = byName(routing)
  assert.deepStrictEqual(providers.get("local"), LOCAL)
  assert.deepStrictEqual(providers.get("groq"), {
    name: "groq",
    adapter: "openai-compatible",
    baseUrl: "https://api.groq.com/openai/v1",
    apiKey: "gsk-from-env",
    headers: {},
    models: ["llama-3.1-8b-instant"]
  })
  assert.deepStrictEqual(providers.get("lab"), {
    name: "lab",
    adapter: "openai-compatible",
    baseUrl: "http://10.0.0.7:8000/v1",
    apiKey: undefined,
    headers: { "x-team": "ml" },
    models: []
  })
  assert.deepStrictEqual(routing.routes, [
    { match: "team/fast", provider: "groq", model: "llama-3.1-8b-instant" },
    { match: "meta/*", provider: "groq" }
  ])
  assert.deepStrictEqual(routing.fallbacks, { "groq/llama-3.3-70b-versatile": ["lab/qwen", "local/echo"] })
}

/** The RoutingConfigError message a text is refused with. */
const refusal = (text: string, env: Record<string, string> = {}) =>
  Effect.flip(parseRoutingFile(text, "gateway.yaml")).pipe(
    withEnv(env),
    Effect.map((error) => {
      assert.strictEqual(error._tag, "RoutingConfigError")
      return error.message
    })
  )

describe("parseRoutingFile", () => {
  it.effect("reads JSON; the API key comes from the variable api_key_env names", () =>
    Effect.gen(function*() {
      expectedFromFile(
        yield* parseRoutingFile(fileAsJson, "gateway.json").pipe(withEnv({ MY_GROQ_KEY: "gsk-from-env" }))
      )
    }))

  it.effect("reads the same routing from YAML", () =>
    Effect.gen(function*() {
      const yaml = yield* parseRoutingFile(fileAsYaml, "gateway.yaml").pipe(withEnv({ MY_GROQ_KEY: "gsk-from-env" }))
      expectedFromFile(yaml)
      const json = yield* parseRoutingFile(fileAsJson, "gateway.json").pipe(withEnv({ MY_GROQ_KEY: "gsk-from-env" }))
      assert.deepStrictEqual([...byName(yaml).entries()], [...byName(json).entries()])
    }))

  it.effect("an api_key_env that is not set leaves the provider without a key", () =>
    Effect.gen(function*() {
      const routing = yield* parseRoutingFile(fileAsJson, "gateway.json").pipe(withEnv({}))
      assert.isUndefined(byName(routing).get("groq")?.apiKey)
    }))

  it.effect("an empty file is the environment's routing", () =>
    Effect.gen(function*() {
      for (const text of ["", "# nothing yet\n", "{}"]) {
        const routing = yield* parseRoutingFile(text, "gateway.yaml").pipe(withEnv({ OPENAI_API_KEY: "sk-o" }))
        assert.deepStrictEqual([...byName(routing).keys()], ["local", "openai"], JSON.stringify(text))
        assert.deepStrictEqual(routing.routes, [])
        assert.deepStrictEqual(routing.fallbacks, {})
      }
    }))

  it.effect("adds to the providers the environment enables; a file entry of the same name wins", () =>
    Effect.gen(function*() {
      const text = JSON.stringify({
        providers: { openai: { base_url: "https://proxy.example/v1", api_key_env: "PROXY_KEY" } }
      })
      const routing = yield* parseRoutingFile(text, "gateway.json").pipe(
        withEnv({ OPENAI_API_KEY: "sk-direct", PROXY_KEY: "sk-proxy", GROQ_API_KEY: "gsk" })
      )
      const providers = byName(routing)
      assert.deepStrictEqual([...providers.keys()].sort(), ["groq", "local", "openai"])
      assert.strictEqual(providers.get("openai")?.baseUrl, "https://proxy.example/v1")
      assert.strictEqual(providers.get("openai")?.apiKey, "sk-proxy")
    }))

  it.effect("a local-adapter provider needs no base_url and serves echo", () =>
    Effect.gen(function*() {
      const routing = yield* parseRoutingFile(
        JSON.stringify({ providers: { offline: { adapter: "local" } } }),
        "g.json"
      ).pipe(withEnv({}))
      assert.deepStrictEqual(byName(routing).get("offline"), { ...LOCAL, name: "offline" })
    }))

  it.effect("a provider's own prices, by model glob; a file without any sets none", () =>
    Effect.gen(function*() {
      const text = "providers:\n  lab:\n    base_url: http://10.0.0.7:8000/v1\n" +
        "    prices: { qwen-7b: { input: 0.1, output: 0.3, cached_input: 0.01 }, '*': { input: 0.2, output: 0.6 } }\n"
      const routing = yield* parseRoutingFile(text, "gateway.yaml").pipe(withEnv({}))
      assert.deepStrictEqual(routing.prices, {
        lab: { "qwen-7b": { input: 0.1, output: 0.3, cached_input: 0.01 }, "*": { input: 0.2, output: 0.6 } }
      })
      assert.deepStrictEqual((yield* parseRoutingFile(fileAsJson, "gateway.json").pipe(withEnv({}))).prices, {})
    }))

  it.effect("refuses a negative price, or one without its output rate, naming the file", () =>
    Effect.gen(function*() {
      for (const price of [{ input: -1, output: 1 }, { input: 1 }]) {
        const text = JSON.stringify({ providers: { lab: { base_url: "http://h/v1", prices: { "*": price } } } })
        const message = yield* refusal(text)
        assert.include(message, "gateway.yaml")
        assert.include(message, "prices")
      }
    }))

  it.effect("a route may name a provider the environment enables", () =>
    Effect.gen(function*() {
      const text = JSON.stringify({
        routes: [{ match: "gpt/*", provider: "openai" }, { match: "echo/*", provider: "local" }]
      })
      const routing = yield* parseRoutingFile(text, "g.json").pipe(withEnv({ OPENAI_API_KEY: "sk" }))
      assert.strictEqual(routing.routes.length, 2)
    }))

  it.effect("refuses a route to an unknown provider, naming the route, the provider and the file", () =>
    Effect.gen(function*() {
      const message = yield* refusal(JSON.stringify({ routes: [{ match: "team/*", provider: "nope" }] }))
      for (const fragment of ["gateway.yaml", "team/*", "nope"]) assert.include(message, fragment)
    }))

  it.effect("a balanced route lists its targets with weights (default 1)", () =>
    Effect.gen(function*() {
      const text = `
providers:
  east: { base_url: "http://10.0.0.1/v1" }
  west: { base_url: "http://10.0.0.2/v1" }
routes:
  - match: team/chat
    targets: [{ provider: east, model: qwen, weight: 3 }, { provider: west }]
`
      const routing = yield* parseRoutingFile(text, "g.yaml").pipe(withEnv({}))
      assert.deepStrictEqual(routing.routes, [
        { match: "team/chat", targets: [{ provider: "east", model: "qwen", weight: 3 }, { provider: "west" }] }
      ])
    }))

  it.effect("refuses a route with neither provider nor targets, or with both, naming the route", () =>
    Effect.gen(function*() {
      const providers = { east: { base_url: "http://10.0.0.1/v1" } }
      const neither = yield* refusal(JSON.stringify({ providers, routes: [{ match: "team/x" }] }))
      assert.include(neither, "team/x")
      assert.include(neither, "needs a provider, or targets")
      const both = yield* refusal(JSON.stringify({
        providers,
        routes: [{ match: "team/y", provider: "east", targets: [{ provider: "east" }] }]
      }))
      assert.include(both, "team/y")
      assert.include(both, "go in each target")
    }))

  it.effect("refuses a balanced route with no targets, an unknown one, one twice, or a weight that is not > 0", () =>
    Effect.gen(function*() {
      const providers = { east: { base_url: "http://10.0.0.1/v1" } }
      const route = (targets: unknown) => JSON.stringify({ providers, routes: [{ match: "team/z", targets }] })
      assert.include(yield* refusal(route([])), "has no targets")
      assert.include(yield* refusal(route([{ provider: "nope" }])), "unknown provider 'nope'")
      assert.include(yield* refusal(route([{ provider: "east" }, { provider: "east" }])), "east/* twice")
      for (const weight of [0, -1]) {
        assert.include(yield* refusal(route([{ provider: "east", weight }])), "gateway.yaml")
      }
    }))

  it.effect("refuses a route to a provider enabled only by a variable that is not set", () =>
    Effect.gen(function*() {
      assert.include(yield* refusal(JSON.stringify({ routes: [{ match: "gpt/*", provider: "openai" }] })), "openai")
    }))

  it.effect("gemini and openai have their services' URLs; openai-responses, like openai-compatible, needs one", () =>
    Effect.gen(function*() {
      const routing = yield* parseRoutingFile(
        "providers:\n  g: { adapter: gemini }\n  o: { adapter: openai }\n  r: { adapter: openai-responses, base_url: http://127.0.0.1:9/v1 }\n",
        "gateway.yaml"
      )
      const byName = new Map(routing.providers.map((provider) => [provider.name, provider]))
      assert.deepStrictEqual(
        ["g", "o", "r"].map((name) => [byName.get(name)?.adapter, byName.get(name)?.baseUrl]),
        [["gemini", "https://generativelanguage.googleapis.com/v1beta"], ["openai", "https://api.openai.com/v1"], [
          "openai-responses",
          "http://127.0.0.1:9/v1"
        ]]
      )
    }))

  it.effect("refuses an openai-compatible or openai-responses provider without base_url", () =>
    Effect.gen(function*() {
      for (const entry of [{}, { adapter: "openai-compatible", api_key_env: "K" }, { adapter: "openai-responses" }]) {
        const message = yield* refusal(JSON.stringify({ providers: { mine: entry } }))
        assert.include(message, "mine")
        assert.include(message, "base_url")
      }
    }))

  it.effect("refuses text that is not JSON or YAML, and a file of the wrong shape, naming the file", () =>
    Effect.gen(function*() {
      const cases = [
        "providers: [unclosed",
        "{\"routes\": ",
        JSON.stringify({ routes: "meta/* -> groq" }),
        JSON.stringify({ routes: [{ match: "", provider: "local" }] }),
        JSON.stringify({ providers: { x: { adapter: "bedrock", base_url: "https://a" } } }),
        JSON.stringify({ fallbacks: { "a/b": "c/d" } }),
        "- just\n- a list\n"
      ]
      for (const text of cases) assert.include(yield* refusal(text), "gateway.yaml", text)
    }))
})

describe("adapter: anthropic", () => {
  it.effect("needs no base_url (Anthropic's API by default) and keeps one given", () =>
    Effect.gen(function*() {
      const routing = yield* parseRoutingFile(
        JSON.stringify({
          providers: {
            claude: { adapter: "anthropic" },
            proxy: { adapter: "anthropic", base_url: "http://127.0.0.1:9/v1" }
          }
        }),
        "gateway.yaml"
      )
      const byName = new Map(routing.providers.map((p) => [p.name, p]))
      assert.strictEqual(byName.get("claude")?.baseUrl, "https://api.anthropic.com")
      assert.strictEqual(byName.get("proxy")?.baseUrl, "http://127.0.0.1:9/v1")
      assert.strictEqual(byName.get("proxy")?.adapter, "anthropic")
    }))
})

describe("routingFromEnv", () => {
  const fromEnv = (env: Record<string, string>) => routingFromEnv.pipe(withEnv(env), Effect.map(byName))

  it.effect("with nothing set: only local", () =>
    Effect.gen(function*() {
      const routing = yield* routingFromEnv.pipe(withEnv({}))
      assert.deepStrictEqual(routing.providers.map(plain), [LOCAL])
      assert.deepStrictEqual(routing.routes, [])
      assert.deepStrictEqual(routing.fallbacks, {})
    }))

  it.effect("OPENAI_API_KEY alone enables openai at the default URL, on OpenAI's own adapter (chat and Responses)", () =>
    Effect.gen(function*() {
      const providers = yield* fromEnv({ OPENAI_API_KEY: "sk-test" })
      assert.deepStrictEqual([...providers.keys()], ["local", "openai"])
      assert.deepStrictEqual(providers.get("openai"), {
        name: "openai",
        adapter: "openai",
        baseUrl: "https://api.openai.com/v1",
        apiKey: "sk-test",
        headers: {},
        models: []
      })
    }))

  it.effect("ANTHROPIC_API_KEY enables author anthropic on the anthropic adapter", () =>
    Effect.gen(function*() {
      const providers = yield* fromEnv({ ANTHROPIC_API_KEY: "sk-ant" })
      assert.deepStrictEqual(providers.get("anthropic"), {
        name: "anthropic",
        adapter: "anthropic",
        baseUrl: "https://api.anthropic.com",
        apiKey: "sk-ant",
        headers: {},
        models: []
      })
    }))

  it.effect("GEMINI_API_KEY enables author google on the gemini adapter; GEMINI_BASE_URL moves it", () =>
    Effect.gen(function*() {
      const providers = yield* fromEnv({ GEMINI_API_KEY: "g-key" })
      assert.deepStrictEqual(providers.get("google"), {
        name: "google",
        adapter: "gemini",
        baseUrl: "https://generativelanguage.googleapis.com/v1beta",
        apiKey: "g-key",
        headers: {},
        models: []
      })
      const moved = yield* fromEnv({ GEMINI_API_KEY: "g-key", GEMINI_BASE_URL: "http://127.0.0.1:9/v1beta" })
      assert.strictEqual(moved.get("google")?.baseUrl, "http://127.0.0.1:9/v1beta")
    }))

  it.effect("<NAME>_BASE_URL overrides the default URL, and enables a service without a key", () =>
    Effect.gen(function*() {
      const providers = yield* fromEnv({
        OPENAI_API_KEY: "sk",
        OPENAI_BASE_URL: "http://proxy:8080/v1",
        GROQ_BASE_URL: "http://g/v1"
      })
      assert.strictEqual(providers.get("openai")?.baseUrl, "http://proxy:8080/v1")
      assert.deepStrictEqual([providers.get("groq")?.baseUrl, providers.get("groq")?.apiKey], [
        "http://g/v1",
        undefined
      ])
    }))

  it.effect("a self-hosted service needs its base URL: a key alone does not enable it", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual([...(yield* fromEnv({ VLLM_API_KEY: "token" })).keys()], ["local"])
      const providers = yield* fromEnv({ VLLM_BASE_URL: "http://gpu-box:8000/v1" })
      assert.deepStrictEqual(providers.get("vllm"), {
        name: "vllm",
        adapter: "openai-compatible",
        baseUrl: "http://gpu-box:8000/v1",
        apiKey: undefined,
        headers: {},
        models: []
      })
      const withKey = yield* fromEnv({ VLLM_BASE_URL: "http://gpu-box:8000/v1", VLLM_API_KEY: "token" })
      assert.strictEqual(withKey.get("vllm")?.apiKey, "token")
    }))

  it.effect("each well-known service by its own variables; local always first", () =>
    Effect.gen(function*() {
      const routing = yield* routingFromEnv.pipe(withEnv({
        GROQ_API_KEY: "g",
        TOGETHER_API_KEY: "t",
        MISTRAL_API_KEY: "m",
        DEEPSEEK_API_KEY: "d",
        OPENROUTER_API_KEY: "r",
        OLLAMA_BASE_URL: "http://localhost:11434/v1",
        LLAMACPP_BASE_URL: "http://localhost:8080/v1"
      }))
      const providers = byName(routing)
      assert.strictEqual(routing.providers[0]?.name, "local")
      assert.deepStrictEqual(
        [...providers.keys()].sort(),
        ["deepseek", "groq", "llamacpp", "local", "mistral", "ollama", "openrouter", "together"]
      )
      assert.strictEqual(providers.get("groq")?.baseUrl, "https://api.groq.com/openai/v1")
      assert.strictEqual(providers.get("openrouter")?.baseUrl, "https://openrouter.ai/api/v1")
      assert.strictEqual(providers.get("mistral")?.apiKey, "m")
    }))
})
