/**
 * Fake providers for the core's tests: a `Provider` whose answers are scripted per call (the n-th call
 * gets the n-th answer, the last answer repeats), recording every `ProviderCall` it receives, and a
 * `Providers` layer built by the real `makeRegistry` over such fakes.
 */
import { Effect, Layer, Stream } from "effect"
import type { Completion, CompletionChunk, Usage } from "../../src/kernel/Canonical.ts"
import type { Provider, ProviderCall } from "../../src/providers/Provider.ts"
import { ProviderError, UpstreamStatus } from "../../src/providers/ProviderError.ts"
import { makeRegistry, Providers } from "../../src/providers/Providers.ts"
import type { RouteEntry } from "../../src/providers/RoutingConfig.ts"
import { streamPull } from "./PullStreams.ts"

export interface Script {
  readonly complete?: ReadonlyArray<Effect.Effect<Completion, ProviderError>>
  readonly stream?: ReadonlyArray<Stream.Stream<CompletionChunk, ProviderError>>
  readonly models?: ReadonlyArray<string>
}

export interface ScriptedProvider {
  readonly provider: Provider
  readonly completeCalls: Array<ProviderCall>
  readonly streamCalls: Array<ProviderCall>
  /** How many times a returned stream was actually run. */
  readonly streamRuns: () => number
}

const nth = <A>(items: ReadonlyArray<A> | undefined, index: number, what: string): A => {
  const item = items?.[Math.min(index, (items?.length ?? 1) - 1)]
  if (item === undefined) throw new Error(`no scripted ${what}`)
  return item
}

export const scriptedProvider = (name: string, script: Script = {}): ScriptedProvider => {
  const completeCalls: Array<ProviderCall> = []
  const streamCalls: Array<ProviderCall> = []
  let runs = 0
  const provider: Provider = {
    name,
    adapter: "scripted",
    models: script.models ?? [],
    complete: (call) =>
      Effect.suspend(() => {
        completeCalls.push(call)
        return nth(script.complete, completeCalls.length - 1, `${name} completion`)
      }),
    open: (call, scope) => {
      streamCalls.push(call)
      const scripted = nth(script.stream, streamCalls.length - 1, `${name} stream`)
      return streamPull(Stream.suspend(() => {
        runs++
        return scripted
      }))(scope)
    }
  }
  return { provider, completeCalls, streamCalls, streamRuns: () => runs }
}

/** The real registry over the given fakes, as a `Providers` layer. */
export const providersLayer = (
  providers: ReadonlyArray<Provider>,
  routing: {
    readonly routes?: ReadonlyArray<RouteEntry>
    readonly fallbacks?: Readonly<Record<string, ReadonlyArray<string>>>
  } = {}
) =>
  Layer.effect(
    Providers,
    makeRegistry(
      { providers: [], routes: routing.routes ?? [], fallbacks: routing.fallbacks ?? {}, prices: {}, mcpServers: [] },
      new Map(providers.map((provider) => [provider.name, provider]))
    )
  )

export const usageOf = (prompt: number, completion: number): Usage => ({
  promptTokens: prompt,
  completionTokens: completion,
  totalTokens: prompt + completion,
  cachedTokens: 0,
  reasoningTokens: 0
})

export const completionOf = (text: string, model = "upstream-model"): Completion => ({
  model,
  choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
  usage: usageOf(3, 2),
  extra: {}
})

export const chunkOf = (text: string, finish: string | null = null): CompletionChunk => ({
  model: "upstream-model",
  choices: [{ index: 0, delta: { content: text }, finish_reason: finish }],
  usage: undefined,
  extra: {}
})

export const upstreamFailure = (provider: string, status: number, message = `status ${status}`) =>
  new ProviderError({ provider, reason: new UpstreamStatus({ status, message }) })
