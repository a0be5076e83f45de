/**
 * The registry (`makeRegistry` over fake providers) and `splitAddress`: author routing, glob and exact
 * routes, model rewrites, ids with slashes, unknown models, fallback chains, and the models list.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { Provider } from "../../../src/providers/Provider.ts"
import { makeRegistry, type Providers, splitAddress, type Target } from "../../../src/providers/Providers.ts"
import type { Routing } from "../../../src/providers/RoutingConfig.ts"
import { scriptedProvider } from "../../utils/ScriptedProvider.ts"

const fake = (name: string, models: ReadonlyArray<string> = []): Provider => scriptedProvider(name, { models }).provider

const openai = fake("openai", ["gpt-4o", "gpt-4o-mini"])
const groq = fake("groq")
const openrouter = fake("openrouter")
const local = fake("local", ["echo"])

const registry = (routing: Partial<Routing>, providers: ReadonlyArray<Provider> = [openai, groq, openrouter, local]) =>
  makeRegistry(
    { providers: [], routes: [], fallbacks: {}, prices: {}, mcpServers: [], ...routing },
    new Map(providers.map((provider) => [provider.name, provider]))
  )

/** Each target as `provider:modelId@address`. */
const show = (targets: ReadonlyArray<Target>) =>
  targets.map((target) => `${target.provider.name}:${target.modelId}@${target.address}`)

const resolved = (providers: Providers["Service"], address: string) => Effect.map(providers.resolve(address), show)

const notFound = (providers: Providers["Service"], address: string) =>
  Effect.gen(function*() {
    const error = yield* Effect.flip(providers.resolve(address))
    assert.strictEqual(error._tag, "RequestError")
    if (error.reason._tag !== "ModelNotFound") return assert.fail(error.reason._tag)
    assert.strictEqual(error.reason.model, address)
  })

describe("splitAddress", () => {
  const cases: ReadonlyArray<readonly [string, { author: string; modelId: string } | undefined]> = [
    ["openai/gpt-4o", { author: "openai", modelId: "gpt-4o" }],
    ["openrouter/meta-llama/llama-3.1-8b", { author: "openrouter", modelId: "meta-llama/llama-3.1-8b" }],
    ["a/b/c/d", { author: "a", modelId: "b/c/d" }],
    ["local/echo:latest", { author: "local", modelId: "echo:latest" }],
    ["gpt-4o", undefined],
    ["/gpt-4o", undefined],
    ["openai/", undefined],
    ["/", undefined],
    ["", undefined]
  ]
  for (const [address, expected] of cases) {
    it(JSON.stringify(address), () => assert.deepStrictEqual(splitAddress(address), expected))
  }
})

describe("makeRegistry.resolve of a bare model name (Claude Code's)", () => {
  const anthropic = fake("anthropic")
  it.effect("is the default author's when no route matches the name", () =>
    Effect.gen(function*() {
      const providers = yield* registry({}, [anthropic, openai])
      assert.deepStrictEqual(
        show(yield* providers.resolve("claude-sonnet-4-5", "anthropic")),
        ["anthropic:claude-sonnet-4-5@anthropic/claude-sonnet-4-5"]
      )
    }))

  it.effect("goes where a route matching the name sends it, model rewrite included", () =>
    Effect.gen(function*() {
      const providers = yield* registry({
        routes: [{ match: "claude-haiku-*", provider: "local", model: "echo" }, {
          match: "claude-*",
          provider: "openai"
        }]
      }, [anthropic, openai, local])
      assert.deepStrictEqual(show(yield* providers.resolve("claude-haiku-4-5", "anthropic")), [
        "local:echo@claude-haiku-4-5"
      ])
      assert.deepStrictEqual(show(yield* providers.resolve("claude-opus-4-1", "anthropic")), [
        "openai:claude-opus-4-1@claude-opus-4-1"
      ])
    }))

  it.effect("without a default author a bare name is not found; with one, an unserved author is not found", () =>
    Effect.gen(function*() {
      yield* notFound(yield* registry({}, [openai]), "claude-sonnet-4-5")
      const error = yield* Effect.flip((yield* registry({}, [openai])).resolve("claude-sonnet-4-5", "anthropic"))
      assert.strictEqual(error.reason._tag, "ModelNotFound")
    }))
})

describe("makeRegistry.resolve", () => {
  it.effect("an author id equal to a provider name needs no route", () =>
    Effect.gen(function*() {
      const providers = yield* registry({})
      assert.deepStrictEqual(yield* resolved(providers, "openai/gpt-4o"), ["openai:gpt-4o@openai/gpt-4o"])
      assert.deepStrictEqual(yield* resolved(providers, "openai/not-listed-model"), [
        "openai:not-listed-model@openai/not-listed-model"
      ])
    }))

  it.effect("model ids keep their slashes", () =>
    Effect.gen(function*() {
      const providers = yield* registry({})
      assert.deepStrictEqual(yield* resolved(providers, "openrouter/meta-llama/llama-3.1-8b"), [
        "openrouter:meta-llama/llama-3.1-8b@openrouter/meta-llama/llama-3.1-8b"
      ])
    }))

  it.effect("the target carries the provider value itself", () =>
    Effect.gen(function*() {
      const [target] = yield* (yield* registry({})).resolve("groq/llama")
      assert.strictEqual(target?.provider, groq)
    }))

  it.effect("a glob route sends an author to a provider, keeping the model id", () =>
    Effect.gen(function*() {
      const providers = yield* registry({ routes: [{ match: "meta/*", provider: "groq" }] })
      assert.deepStrictEqual(yield* resolved(providers, "meta/llama-3.1-8b"), ["groq:llama-3.1-8b@meta/llama-3.1-8b"])
      yield* notFound(providers, "metaverse/x")
    }))

  it.effect("a route may match the author alone", () =>
    Effect.gen(function*() {
      const providers = yield* registry({ routes: [{ match: "mistralai", provider: "openrouter" }] })
      assert.deepStrictEqual(yield* resolved(providers, "mistralai/mistral-large"), [
        "openrouter:mistral-large@mistralai/mistral-large"
      ])
    }))

  it.effect("an exact route with model rewrites the model id", () =>
    Effect.gen(function*() {
      const providers = yield* registry({
        routes: [{ match: "team/fast", provider: "groq", model: "llama-3.1-8b-instant" }, {
          match: "team/*",
          provider: "openai"
        }]
      })
      assert.deepStrictEqual(yield* resolved(providers, "team/fast"), ["groq:llama-3.1-8b-instant@team/fast"])
      assert.deepStrictEqual(yield* resolved(providers, "team/smart"), ["openai:smart@team/smart"])
    }))

  it.effect("routes are tried in order, the first match wins, and they take precedence over author names", () =>
    Effect.gen(function*() {
      const providers = yield* registry({
        routes: [{ match: "openai/gpt-4o", provider: "openrouter", model: "openai/gpt-4o" }, {
          match: "openai/*",
          provider: "groq"
        }]
      })
      assert.deepStrictEqual(yield* resolved(providers, "openai/gpt-4o"), ["openrouter:openai/gpt-4o@openai/gpt-4o"])
      assert.deepStrictEqual(yield* resolved(providers, "openai/gpt-4o-mini"), ["groq:gpt-4o-mini@openai/gpt-4o-mini"])
    }))

  it.effect("glob characters other than * are literal", () =>
    Effect.gen(function*() {
      const providers = yield* registry({
        routes: [{ match: "a.b/*", provider: "groq" }, { match: "x+/*", provider: "groq" }]
      })
      assert.deepStrictEqual(yield* resolved(providers, "a.b/m"), ["groq:m@a.b/m"])
      yield* notFound(providers, "aXb/m")
      yield* notFound(providers, "xx/m")
    }))

  it.effect("an unknown author or a malformed address is ModelNotFound", () =>
    Effect.gen(function*() {
      const providers = yield* registry({})
      for (const address of ["anthropic/claude-3", "gpt-4o", "openai/", "/gpt-4o", ""]) {
        yield* notFound(providers, address)
      }
    }))

  it.effect("a fallback chain resolves to the primary then each backup, in order", () =>
    Effect.gen(function*() {
      const providers = yield* registry({
        routes: [{ match: "meta/*", provider: "groq" }],
        fallbacks: { "openai/gpt-4o": ["meta/llama-3.3-70b", "openrouter/openai/gpt-4o", "local/echo"] }
      })
      assert.deepStrictEqual(yield* resolved(providers, "openai/gpt-4o"), [
        "openai:gpt-4o@openai/gpt-4o",
        "groq:llama-3.3-70b@meta/llama-3.3-70b",
        "openrouter:openai/gpt-4o@openrouter/openai/gpt-4o",
        "local:echo@local/echo"
      ])
      assert.deepStrictEqual(yield* resolved(providers, "openai/gpt-4o-mini"), [
        "openai:gpt-4o-mini@openai/gpt-4o-mini"
      ])
    }))

  it.effect("a balanced route resolves to each of its targets with its weight, then the fallbacks", () =>
    Effect.gen(function*() {
      const providers = yield* registry({
        routes: [{
          match: "team/chat",
          targets: [{ provider: "groq", model: "llama", weight: 3 }, { provider: "openrouter" }]
        }],
        fallbacks: { "team/chat": ["local/echo"] }
      })
      const targets = yield* providers.resolve("team/chat")
      assert.deepStrictEqual(show(targets), [
        "groq:llama@team/chat",
        "openrouter:chat@team/chat",
        "local:echo@local/echo"
      ])
      assert.deepStrictEqual(targets.map((target) => target.balance), [
        { route: "team/chat", weight: 3 },
        { route: "team/chat", weight: 1 },
        undefined
      ])
      // a glob balances every model it matches, each target asked for the address's model unless it names one
      const glob = yield* registry({
        routes: [{ match: "meta/*", targets: [{ provider: "groq" }, { provider: "openrouter" }] }]
      })
      assert.deepStrictEqual(yield* resolved(glob, "meta/llama-3.3"), [
        "groq:llama-3.3@meta/llama-3.3",
        "openrouter:llama-3.3@meta/llama-3.3"
      ])
    }))

  it.effect("a fallback chain may start at a routed address", () =>
    Effect.gen(function*() {
      const providers = yield* registry({
        routes: [{ match: "team/fast", provider: "groq", model: "llama-3.1-8b-instant" }],
        fallbacks: { "team/fast": ["openai/gpt-4o-mini"] }
      })
      assert.deepStrictEqual(yield* resolved(providers, "team/fast"), [
        "groq:llama-3.1-8b-instant@team/fast",
        "openai:gpt-4o-mini@openai/gpt-4o-mini"
      ])
    }))

  it.effect("a fallback (or chain head) that does not resolve is a RoutingConfigError naming it", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [Record<string, ReadonlyArray<string>>, string]> = [
        [{ "openai/gpt-4o": ["nobody/model"] }, "nobody/model"],
        [{ "openai/gpt-4o": ["groq/llama", "no-slash"] }, "no-slash"],
        [{ "ghost/model": ["openai/gpt-4o"] }, "ghost/model"]
      ]
      for (const [fallbacks, culprit] of cases) {
        const error = yield* Effect.flip(registry({ fallbacks }))
        assert.strictEqual(error._tag, "RoutingConfigError")
        assert.include(error.message, culprit)
      }
    }))
})

describe("makeRegistry.models", () => {
  it.effect("lists each provider's models under its name, then exact routes; glob routes are not models", () =>
    Effect.gen(function*() {
      const providers = yield* registry({
        routes: [
          { match: "team/fast", provider: "groq", model: "llama-3.1-8b-instant" },
          { match: "meta/*", provider: "groq" },
          { match: "team/smart", provider: "openai" }
        ]
      })
      assert.deepStrictEqual(providers.models(), [
        { id: "openai/gpt-4o", owned_by: "openai" },
        { id: "openai/gpt-4o-mini", owned_by: "openai" },
        { id: "local/echo", owned_by: "local" },
        { id: "team/fast", owned_by: "groq" },
        { id: "team/smart", owned_by: "openai" }
      ])
    }))

  it.effect("is empty when no provider lists models and there are no routes", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual((yield* registry({}, [groq, openrouter])).models(), [])
    }))

  it.effect("lists each id once, even when an exact route names a model a provider lists", () =>
    Effect.gen(function*() {
      const providers = yield* registry({
        routes: [{ match: "openai/gpt-4o", provider: "openrouter", model: "openai/gpt-4o" }]
      })
      const ids = providers.models().map((model) => model.id)
      assert.deepStrictEqual(ids, [...new Set(ids)])
      assert.includeMembers(ids, ["openai/gpt-4o", "openai/gpt-4o-mini", "local/echo"])
    }))
})
