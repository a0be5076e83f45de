/**
 * The built-in offline provider, addressed as `local/echo`. It never touches the network: it echoes
 * the last user message, calls an offered tool when told `call <tool> <json-args>`, and answers with
 * tool results, so a new user, the end-to-end tests and the shared-tool loop can run with no API key.
 * What it answers lives in `LocalReply.ts`; this module only checks the model and draws tool call ids.
 */
import { Effect, Random, type Scope } from "effect"
import { pullOnce, spanPull, streamOf } from "../../kernel/ChunkPull.ts"
import type { Provider, ProviderCall } from "../Provider.ts"
import { ProviderError, UpstreamStatus } from "../ProviderError.ts"
import { answer, chunksOf, completionOf, ECHO_MODEL, usageOf } from "./LocalReply.ts"
import { annotateGenAi, genAiChunks } from "../../observability/GenAi.ts"
import { hotSpan, isTracing } from "../../Tracing.ts"

const NAME = "local"

const ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

/** Shaped like OpenAI's ids; drawn from Effect's `Random` so a test can seed it. */
const toolCallId = Effect.gen(function*() {
  let id = "call_"
  for (let i = 0; i < 24; i++) {
    id += ID_ALPHABET.charAt(yield* Random.nextIntBetween(0, ID_ALPHABET.length, { halfOpen: true }))
  }
  return id
})

const notServed = (modelId: string) =>
  new ProviderError({
    provider: NAME,
    reason: new UpstreamStatus({
      status: 404,
      message: `The model '${modelId}' is not served by the local provider; try local/echo`,
      code: "model_not_found"
    })
  })

const decide = Effect.fnUntraced(function*(call: ProviderCall) {
  if (call.modelId !== ECHO_MODEL) return yield* notServed(call.modelId)
  const reply = answer(call, yield* toolCallId)
  return { reply, usage: usageOf(call.messages, reply) }
})

const complete = Effect.fnUntraced(function*(call: ProviderCall) {
  const genAi = { system: NAME, requestModel: call.modelId }
  yield* annotateGenAi(genAi)
  const { reply, usage } = yield* decide(call)
  const completion = completionOf(reply, usage)
  yield* annotateGenAi(genAi, completion)
  return completion
}, hotSpan("LocalProvider.complete"))

/** The whole answer as one pull: nothing to wait for, so no stream stages either. */
const openPlain = (call: ProviderCall) => Effect.map(decide(call), ({ reply, usage }) => pullOnce(chunksOf(reply, usage)))

const traced = (call: ProviderCall, scope: Scope.Scope) => {
  const genAi = genAiChunks({ system: NAME, requestModel: call.modelId })
  return spanPull(() => openPlain(call), "LocalProvider.stream", {}, genAi)(scope)
}

// the attempt's span only when a real tracer records it, as OpenAiCompatible does
const open = (call: ProviderCall, scope: Scope.Scope) =>
  Effect.withFiber((fiber) => isTracing(fiber) ? traced(call, scope) : openPlain(call))

const stream = (call: ProviderCall) => streamOf((scope) => open(call, scope))

export const LocalProvider: Provider = {
  name: NAME,
  adapter: "local",
  models: [ECHO_MODEL],
  complete,
  stream,
  open
}

/** The same provider, for registries that build every provider as an effect. */
export const make: Effect.Effect<Provider> = Effect.succeed(LocalProvider)
