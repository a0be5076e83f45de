/**
 * The GenAI helpers on attempt spans shaped like the adapters' (`hotSpan` around a whole completion,
 * `spanPull` around a streamed answer's pull), read back from the in-memory exporter; and with tracing
 * off they change nothing.
 */
import { SpanStatusCode } from "@opentelemetry/api"
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base"
import { Effect, Stream } from "effect"
import { describe, expect, it } from "vitest"
import type { CompletionChunk, Usage } from "../../src/kernel/Canonical.ts"
import { spanPull } from "../../src/kernel/ChunkPull.ts"
import { annotateGenAi, GEN_AI, genAiChunks, genAiRequestAttributes } from "../../src/observability/GenAi.ts"
import { TracingTest } from "../../src/observability/TracingLayer.ts"
import { hotSpan } from "../../src/Tracing.ts"
import { streamOf, streamPull } from "../utils/PullStreams.ts"

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

const chunks = [
  chunk("llama-3.3-70b-versatile", "a"),
  chunk("llama-3.3-70b-versatile", "b"),
  chunk("", "", usage(20, 2))
]

/** A streamed attempt as the adapters trace it: its pull in a span, one chunk per pull. */
const spanned = <E>(answer: Stream.Stream<CompletionChunk, E>) =>
  streamOf(spanPull(streamPull(answer), "Provider.stream", { observe: genAiChunks(request) }))

const stream = spanned(Stream.fromIterable(chunks).pipe(Stream.rechunk(1)))

/** The error `effect` fails with; a success is a test failure worth seeing. */
const failureOf = <E>(effect: Effect.Effect<void, E>) =>
  Effect.match(effect, { onFailure: (error): E | "no failure" => error, onSuccess: () => "no failure" as const })

/** Runs `effect` with the in-memory exporter and returns the exported spans (attributes and status) by name. */
const traced = <A>(effect: Effect.Effect<A>) => {
  const exporter = new InMemorySpanExporter()
  return Effect.runPromise(
    Effect.gen(function*() {
      const value = yield* effect
      const finished = exporter.getFinishedSpans()
      const spans = Object.fromEntries(finished.map((s) => [s.name, s.attributes]))
      const statuses = Object.fromEntries(finished.map((s) => [s.name, s.status.code]))
      return { value, spans, statuses }
    }).pipe(Effect.provide(TracingTest(exporter)))
  )
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
    const { spans, statuses, value } = await traced(Stream.runCollect(stream))
    expect(statuses["Provider.stream"]).toBe(SpanStatusCode.OK)
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

  it("a stream that fails still has the request attributes, and its span the failure", async () => {
    const failing = spanned(Stream.concat(Stream.fromIterable(chunks.slice(0, 1)), Stream.fail("boom")))
    const { spans, statuses, value } = await traced(failureOf(Stream.runDrain(failing)))
    expect(value).toBe("boom")
    expect(spans["Provider.stream"]).toMatchObject({
      ...genAiRequestAttributes(request),
      [GEN_AI.responseModel]: "llama-3.3-70b-versatile"
    })
    expect(statuses["Provider.stream"]).toBe(SpanStatusCode.ERROR)
  })

  it("an answer that fails to open: the span ends with the failure", async () => {
    const refused = streamOf(
      spanPull(() => Effect.fail("refused"), "Provider.stream", { observe: genAiChunks(request) })
    )
    const { spans, statuses, value } = await traced(failureOf(Stream.runDrain(refused)))
    expect(value).toBe("refused")
    expect(spans["Provider.stream"]).toMatchObject(genAiRequestAttributes(request))
    expect(statuses["Provider.stream"]).toBe(SpanStatusCode.ERROR)
  })

  it("the answer's own spans are children of its span", async () => {
    const exporter = new InMemorySpanExporter()
    const child = streamOf(spanPull(
      (scope) =>
        Effect.as(
          Effect.withSpan(Effect.void, "upstream.request"),
          Effect.suspend(() => streamPull(Stream.make(chunks[0]!))(scope))
        ).pipe(Effect.flatten),
      "Provider.stream",
      {}
    ))
    await Effect.runPromise(Stream.runDrain(child).pipe(Effect.provide(TracingTest(exporter))))
    const byName = Object.fromEntries(exporter.getFinishedSpans().map((s) => [s.name, s]))
    expect(byName["upstream.request"]?.parentSpanContext?.spanId).toBe(byName["Provider.stream"]?.spanContext().spanId)
  })

  it("with tracing off, results are the same and nothing fails", async () => {
    expect(await Effect.runPromise(complete())).toMatchObject({ model: "llama-3.3-70b-versatile" })
    expect(await Effect.runPromise(Stream.runCollect(stream))).toEqual(chunks)
    // outside any span at all
    await Effect.runPromise(annotateGenAi(request, { model: "m", usage: undefined }))
  })
})
