/**
 * The scaffold every HTTP adapter shares (`providers/HttpAdapter.ts`), over the undici transport the app
 * runs against a fake upstream: a JSON answer to a streaming request whose body never ends, abandoned by
 * the caller, must close the connection for each of the four adapters (two of them used to read that
 * body without its cancel registered).
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Exit, Scope } from "effect"
import * as Anthropic from "../../src/providers/anthropic/Anthropic.ts"
import * as Gemini from "../../src/providers/gemini/Gemini.ts"
import * as OpenAiCompatible from "../../src/providers/openai/OpenAiCompatible.ts"
import type { Provider } from "../../src/providers/Provider.ts"
import * as Responses from "../../src/providers/responses/Responses.ts"
import { UpstreamTransport } from "../../src/providers/UpstreamTransport.ts"
import { reply, startFakeUpstream } from "../utils/FakeUpstream.ts"
import { optionsOf } from "./OpenAiFixtures.ts"
import { call } from "./responses/ResponsesFixtures.ts"

const undici = UpstreamTransport.layerUndici({ connectTimeout: Duration.seconds(10) })

const adapters: ReadonlyArray<
  readonly [string, (baseUrl: string) => Effect.Effect<Provider, never, UpstreamTransport>]
> = [
  ["openai-compatible", (baseUrl) => OpenAiCompatible.make(optionsOf({ baseUrl: `${baseUrl}/v1` }))],
  ["openai-responses", (baseUrl) => Responses.make(optionsOf({ baseUrl: `${baseUrl}/v1` }))],
  ["anthropic", (baseUrl) => Anthropic.make(optionsOf({ baseUrl }))],
  ["gemini", (baseUrl) => Gemini.make(optionsOf({ baseUrl }))]
]

describe("HttpAdapter: a JSON body to a streaming request", () => {
  for (const [name, make] of adapters) {
    it.live(`${name}: abandoned while its body is read, the connection is closed`, () =>
      Effect.gen(function*() {
        const upstream = yield* Effect.acquireRelease(
          Effect.promise(() => startFakeUpstream(() => reply.jsonHang("{\"error\": {\"message\": \"slow"))),
          (fake) => Effect.promise(() => fake.close())
        )
        const provider = yield* make(upstream.url)
        const scope = yield* Scope.make()
        // the headers come at once, the body never ends: the caller gives up while the body is read
        const opened = yield* Effect.timeoutOption(provider.open(call(), scope), "300 millis")
        expect(opened._tag).toBe("None")
        yield* Scope.close(scope, Exit.void)
        expect(yield* Effect.promise(() => upstream.last().waitForClientClose(2_000))).toBe(true)
      }).pipe(Effect.scoped, Effect.provide(undici)))
  }
})
