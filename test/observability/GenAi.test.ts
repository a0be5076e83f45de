/**
 * The GenAI helpers on attempt spans shaped like the adapters' (`hotSpan` around a whole completion,
 * `Stream.withSpan` around a stream), read back from the in-memory exporter; and with tracing off they
 * change nothing.
 */
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base"
import { describe, expect, it } from "vitest"
import { Effect, Stream } from "effect"
import type { CompletionChunk, Usage } from "../../src/chat/ChatWire.ts"
import { annotateGenAi, GEN_AI, genAiRequestAttributes, traceGenAiStream } from "../../src/observability/GenAi.ts"
import { TracingTest } from "../../src/observability/TracingLayer.ts"
import { hotSpan } from "../../src/Tracing.ts"

const usage = (prompt: number, completion: number): Usage => ({
  promptTokens: prompt,
  completionTokens: completion,
  totalTokens: prompt + completion,
  cachedTokens: 0,
  reasoningTokens: 0
})

const chunk = (model: string, content: string, u?: Usage): CompletionChunk => ({
  model,
  choices: content === "" ? [] : [{ index: 0, delta: { content } }],
  usage: u,
  extra: {}
})

const request = { system: "groq", requestModel: "llama-3.3-70b" }

const complete = Effect.fnUntraced(function*() {
  yield* annotateGenAi(request)
  const completion = { model: "llama-3.3-70b-versatile", usage: usage(12, 5), choices: [], extra: {} }
  yield* annotateGenAi(request, completion)
  return completion
}, hotSpan("Provider.complete"))

const chunks = [chunk("llama-3.3-70b-versatile", "a"), chunk("llama-3.3-70b-versatile", "b"), chunk("", "", usage(20, 2))]

const stream = Stream.fromIterable(chunks).pipe(
  Stream.rechunk(1),
  traceGenAiStream(request),
  Stream.withSpan("Provider.stream", { captureStackTrace: false })
)

/** Runs `effect` with the in-memory exporter and returns the exported spans' attributes by name. */
const traced = <A>(effect: Effect.Effect<A>) => {
  const exporter = new InMemorySpanExporter()
  return Effect.runPromise(Effect.gen(function*() {
    const value = yield* effect
    const spans = Object.fromEntries(exporter.getFinishedSpans().map((s) => [s.name, s.attributes]))
    return { value, spans }
  }).pipe(Effect.provide(TracingTest(exporter))))
}

describe("GenAI attributes", () => {
  it("a whole completion: request, response model and usage on the attempt span", async () => {
    const { spans } = await traced(complete())
    expect(spans["Provider.complete"]).toEqual({
      [GEN_AI.operation]: "chat",
      [GEN_AI.system]: "groq",
      [GEN_AI.requestModel]: "llama-3.3-70b",
      [GEN_AI.responseModel]: "llama-3.3-70b-versatile",
      [GEN_AI.inputTokens]: 12,
      [GEN_AI.outputTokens]: 5
    })
  })

  it("a stream: the first model named and the usage chunk's tokens, chunks untouched", async () => {
    const { spans, value } = await traced(Stream.runCollect(stream))
    expect(value).toEqual(chunks)
    expect(spans["Provider.stream"]).toEqual({
      [GEN_AI.operation]: "chat",
      [GEN_AI.system]: "groq",
      [GEN_AI.requestModel]: "llama-3.3-70b",
      [GEN_AI.responseModel]: "llama-3.3-70b-versatile",
      [GEN_AI.inputTokens]: 20,
      [GEN_AI.outputTokens]: 2
    })
  })

  it("a stream that fails still has the request attributes", async () => {
    const failing = Stream.fail("boom").pipe(
      traceGenAiStream(request),
      Stream.withSpan("Provider.stream", { captureStackTrace: false })
    )
    const { spans } = await traced(Effect.ignore(Stream.runDrain(failing)))
    expect(spans["Provider.stream"]).toMatchObject(genAiRequestAttributes(request))
  })

  it("with tracing off, results are the same and nothing fails", async () => {
    expect(await Effect.runPromise(complete())).toMatchObject({ model: "llama-3.3-70b-versatile" })
    expect(await Effect.runPromise(Stream.runCollect(stream))).toEqual(chunks)
    // outside any span at all
    await Effect.runPromise(annotateGenAi(request, { model: "m", usage: undefined }))
  })
})
