/**
 * `node bench/codecs.ts` (run by `npm run bench` too): what translating a streamed event costs, in
 * microseconds, with no I/O: each codec over a long run of the bench's events, after a warm-up. The
 * pairs: a chat-completions event read and written again (what chat completions costs per event), an
 * Anthropic (and a Responses) event read into the gateway's model, a chunk written as Anthropic (and
 * Responses) events, and the translations a client of one format and an upstream of another pay.
 */
import { Effect } from "effect"
import { parseMessagesCall } from "../src/dialects/anthropic/MessagesRequest.ts"
import { encodeMessageStream } from "../src/dialects/anthropic/MessagesStream.ts"
import { renderFrames } from "../src/dialects/openai/ChatResponse.ts"
import { parseResponsesCall } from "../src/dialects/responses/ResponsesRequest.ts"
import { encodeResponseStream } from "../src/dialects/responses/ResponsesStream.ts"
import { type CompletionChunk, emptyUsage } from "../src/kernel/Canonical.ts"
import { type ChunkPull, pullOnce } from "../src/kernel/ChunkPull.ts"
import { streamDecoder } from "../src/providers/anthropic/AnthropicResponse.ts"
import { decodeChunk } from "../src/providers/openai/OpenAiMapping.ts"
import { streamDecoder as responsesDecoder } from "../src/providers/responses/ResponsesResponse.ts"

const WORDS = ["Hello", " from", " the", " fake", " upstream", ",", " a", " bench", " reply", "."]
const EVENTS = 200_000

const chatEvent = (content: string) =>
  JSON.stringify({
    id: "chatcmpl-bench",
    object: "chat.completion.chunk",
    created: 1,
    model: "fake-model",
    choices: [{ index: 0, delta: { content }, finish_reason: null }]
  })
const anthropicEvent = (text: string) =>
  JSON.stringify({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } })

const responsesEvent = (delta: string) =>
  JSON.stringify({
    type: "response.output_text.delta",
    sequence_number: 5,
    item_id: "msg_bench",
    output_index: 0,
    content_index: 0,
    delta,
    logprobs: []
  })

const chatEvents = WORDS.map(chatEvent)
const responsesEvents = WORDS.map(responsesEvent)
const anthropicEvents = WORDS.map(anthropicEvent)

const decodeChat = (data: string): CompletionChunk => {
  const result = decodeChunk(data, "fake-model")
  if (result._tag === "Failure") throw new Error("decode failed")
  return result.success
}

/** Microseconds per event of `run(n)`, which handles n events, best of three after a warm-up. */
const perEvent = (run: (n: number) => void): number => {
  run(EVENTS / 10)
  let best = Infinity
  for (let i = 0; i < 3; i++) {
    const start = performance.now()
    run(EVENTS)
    best = Math.min(best, ((performance.now() - start) * 1000) / EVENTS)
  }
  return best
}

/** Drains a pull of strings that answers synchronously; returns how many characters came out. */
const drain = (pull: ChunkPull<string, never>): number => {
  let characters = 0
  Effect.runSync(Effect.catchCause(
    Effect.forever(Effect.map(pull, (batch) => {
      for (const frame of batch) characters += frame.length
    })),
    () => Effect.void
  ))
  return characters
}

const identity = { id: "msg_bench", created: 0, model: "bench/fake-model" }
const call = Effect.runSync(
  parseMessagesCall(
    { model: "bench/fake-model", max_tokens: 64, messages: [{ role: "user", content: "Say hello." }] },
    {}
  )
)
const responsesCall = Effect.runSync(
  parseResponsesCall({ model: "bench/fake-model", input: "Say hello.", stream: true }, {})
)
const readResponses = (n: number): Array<CompletionChunk> => {
  const decode = responsesDecoder("fake-model")
  return chunksOf(n, (i) => {
    const step = decode(responsesEvents[i % WORDS.length]!)
    if (step._tag !== "Chunk") throw new Error("no chunk")
    return step.chunk
  })
}
const outcome = () => ({
  usage: emptyUsage,
  attempts: 1,
  rounds: 1,
  toolRuns: [],
  svcPendingId: undefined,
  provider: "bench",
  model: "fake-model",
  dropped: [],
  cost: null
})

const chunksOf = (n: number, make: (i: number) => CompletionChunk): Array<CompletionChunk> => {
  const out: Array<CompletionChunk> = []
  for (let i = 0; i < n; i++) out.push(make(i))
  return out
}

const results: Record<string, number> = {
  "chat completions event, read and written (chat in, chat upstream)": perEvent((n) => {
    const chunks = chunksOf(n, (i) => decodeChat(chatEvents[i % WORDS.length]!))
    drain(renderFrames(pullOnce(chunks), { identity, includeUsage: false, trailer: () => ({}) }))
  }),
  "Anthropic event read into the gateway's model (adapter)": perEvent((n) => {
    const decode = streamDecoder("fake-model")
    for (let i = 0; i < n; i++) decode(anthropicEvents[i % WORDS.length]!)
  }),
  "chunk written as Anthropic events (dialect)": perEvent((n) => {
    const chunks = chunksOf(
      n,
      (i) => ({
        model: "m",
        choices: [{ index: 0, delta: { content: WORDS[i % WORDS.length]! }, finish_reason: null }],
        usage: undefined,
        extra: {}
      })
    )
    drain(encodeMessageStream(identity, call, { chunks: pullOnce(chunks), outcome }))
  }),
  "Messages in, Anthropic upstream: read and written": perEvent((n) => {
    const decode = streamDecoder("fake-model")
    const chunks = chunksOf(n, (i) => {
      const step = decode(anthropicEvents[i % WORDS.length]!)
      if (step._tag !== "Chunk") throw new Error("no chunk")
      return step.chunk
    })
    drain(encodeMessageStream(identity, call, { chunks: pullOnce(chunks), outcome }))
  }),
  "Messages in, chat-completions upstream: read and written": perEvent((n) => {
    const chunks = chunksOf(n, (i) => decodeChat(chatEvents[i % WORDS.length]!))
    drain(encodeMessageStream(identity, call, { chunks: pullOnce(chunks), outcome }))
  }),
  "Responses event read into the gateway's model (adapter)": perEvent((n) => {
    const decode = responsesDecoder("fake-model")
    for (let i = 0; i < n; i++) decode(responsesEvents[i % WORDS.length]!)
  }),
  "chunk written as Responses events (dialect)": perEvent((n) => {
    const chunks = chunksOf(
      n,
      (i) => ({
        model: "m",
        choices: [{ index: 0, delta: { content: WORDS[i % WORDS.length]! }, finish_reason: null }],
        usage: undefined,
        extra: {}
      })
    )
    drain(encodeResponseStream(identity, responsesCall, { chunks: pullOnce(chunks), outcome }))
  }),
  "Responses in, Responses upstream: read and written": perEvent((n) => {
    drain(encodeResponseStream(identity, responsesCall, { chunks: pullOnce(readResponses(n)), outcome }))
  }),
  "Responses in, chat-completions upstream: read and written": perEvent((n) => {
    const chunks = chunksOf(n, (i) => decodeChat(chatEvents[i % WORDS.length]!))
    drain(encodeResponseStream(identity, responsesCall, { chunks: pullOnce(chunks), outcome }))
  })
}

for (const [name, us] of Object.entries(results)) console.log(`${us.toFixed(2).padStart(6)} us/event  ${name}`)
