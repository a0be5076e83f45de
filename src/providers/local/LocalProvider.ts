/**
 * The built-in offline provider, addressed as `local/echo`. It never touches the network: it echoes
 * the last user message, calls offered tools when told `call <tool> <json-args>` (one line per call), and answers with
 * tool results, so a new user, the end-to-end tests and the shared-tool loop can run with no API key.
 * What it answers lives in `LocalReply.ts`; this module only checks the model and draws tool call ids.
 */
import { Effect, Random } from "effect"
import { pullOnce } from "../../kernel/ChunkPull.ts"
import type { Provider, ProviderCall } from "../Provider.ts"
import { ProviderError, UpstreamStatus } from "../ProviderError.ts"
import { answer, chunksOf, completionOf, ECHO_MODEL, usageOf } from "./LocalReply.ts"

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
  // max_completion_tokens (OpenAI's newer name, passed through) limits the echo as max_tokens does
  const limit = call.passthrough["max_completion_tokens"]
  const limited = call.maxTokens === undefined && typeof limit === "number" ? { ...call, maxTokens: limit } : call
  const reply = answer(limited, yield* toolCallId)
  return { reply, usage: usageOf(call.messages, reply) }
})

const complete = (call: ProviderCall) => Effect.map(decide(call), ({ reply, usage }) => completionOf(reply, usage))

/** The whole answer as one pull: nothing to wait for, so no stream stages either. */
const open = (call: ProviderCall) => Effect.map(decide(call), ({ reply, usage }) => pullOnce(chunksOf(reply, usage)))

export const LocalProvider: Provider = {
  name: NAME,
  adapter: "local",
  models: [ECHO_MODEL],
  complete,
  open
}

/** The same provider, for registries that build every provider as an effect. */
export const make: Effect.Effect<Provider> = Effect.succeed(LocalProvider)
