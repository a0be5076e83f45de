/**
 * `POST /v1/chat/completions` and its alias `POST /chat/completions`: authenticate, read and check the
 * body and tags, then answer whole or as server-sent events. Typed errors become OpenAI-shaped JSON
 * here, and every request, however it ends, leaves one row in the request log.
 */
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { Auth } from "../auth/Auth.ts"
import { ChatCompletions } from "../core/ChatCompletions.ts"
import { parseChatCall } from "../dialects/openai/ChatRequest.ts"
import { renderCompletion, renderPull, renderSharedToolReport } from "../dialects/openai/ChatResponse.ts"
import type { CompletionChunk } from "../kernel/ChatWire.ts"
import { mergeTags } from "../core/Tags.ts"
import { newTimeOrderedId, randomBase62 } from "../Ids.ts"
import { RequestEntry } from "../logs/RequestEntry.ts"
import { RequestLog } from "../logs/RequestLog.ts"
import type { RequestRecord } from "../logs/RequestRecord.ts"
import { Metrics } from "../observability/Metrics.ts"
import { describeError, type EdgeError } from "./ErrorResponse.ts"
import { readJsonBody } from "./JsonBody.ts"
import { sseResponse } from "./Sse.ts"

/** The caller's request id when it sent a sane one, so traces line up across services. */
const requestIdOf = (header: string | undefined) =>
  header !== undefined && /^[\w.:-]{1,128}$/.test(header) ? header : undefined

/** What a streamed chunk tells the log: the model that answered, the first content, the text. */
const observe = (entry: RequestEntry) => (chunk: CompletionChunk): void => {
  if (chunk.model !== "") entry.model = chunk.model
  for (const choice of chunk.choices) {
    const content = choice.delta.content
    if (typeof content === "string" && content !== "") {
      entry.firstContent()
      if (choice.index === 0) entry.addCompletionText(content)
    } else if (choice.delta.tool_calls !== undefined) {
      entry.firstContent()
    }
  }
}

/** One row in the request log and in the metrics, once per request. */
const finish = (log: RequestLog["Service"], metrics: Metrics["Service"]) => (record: RequestRecord) => {
  metrics.observeRequest(record)
  return log.record(record)
}

// Made once, not per request: a generator function made per request, closing over its data, kept all
// it closes over alive until a full collection (likely through the map V8 gives each new generator
// function, born in old space); the bench's young collections kept about a tenth of everything a
// request allocated, and promoted it
const answer = Effect.fnUntraced(function*(
  entry: RequestEntry,
  requestId: string,
  headers: Record<string, string>,
  done: (record: RequestRecord) => Effect.Effect<void>
) {
  const request = yield* HttpServerRequest.HttpServerRequest
  const caller = yield* (yield* Auth).authenticate(request.headers["authorization"])
  entry.setCaller(caller)
  const call = yield* parseChatCall(yield* readJsonBody)
  entry.requestedModel = call.model
  entry.stream = call.stream
  const tags = yield* mergeTags(call.tags, request.headers["x-svc-tags"])
  entry.tags = tags
  if (entry.keepContent) entry.promptText = JSON.stringify(call.messages)
  const chat = yield* ChatCompletions
  const identity = { id: `chatcmpl-${randomBase62(24)}`, created: Math.floor(Date.now() / 1000), model: call.model }
  const context = { call, caller, requestId }
  if (!call.stream) {
    const result = yield* chat.complete(context)
    entry.model = result.completion.model
    entry.provider = result.target.provider.name
    entry.usage = result.completion.usage
    entry.attempts = result.attempts
    entry.svcTools = result.toolRuns.map((run) => run.id)
    const content = result.completion.choices[0]?.message.content
    if (typeof content === "string") entry.addCompletionText(content)
    yield* done(entry.finish(200, null))
    return HttpServerResponse.jsonUnsafe(renderCompletion(identity, result.completion, result), { headers })
  }
  const result = yield* chat.stream(context)
  entry.provider = result.target.provider.name
  const trailer = () => renderSharedToolReport(result.summary)
  const chunks = renderPull(identity, call.includeUsage, result.chunks, undefined, trailer, observe(entry))
  // the row is written when the stream ends, whichever way: [DONE], an error event, the client gone
  return yield* sseResponse(chunks, headers, (status, code) => {
    entry.usage = result.summary.usage
    entry.attempts = result.summary.attempts
    entry.svcTools = result.summary.toolRuns.map((run) => run.id)
    return done(entry.finish(status, code))
  })
})

const handler = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const done = finish(yield* RequestLog, yield* Metrics)
  const entry = new RequestEntry(newTimeOrderedId("req"), request.headers["user-agent"])
  const requestId = requestIdOf(request.headers["x-request-id"]) ?? entry.id
  // `x-svc-request-id` finds the request in the log, whatever id the client sent
  const headers = { "x-request-id": requestId, "x-svc-request-id": entry.id }
  yield* Effect.annotateCurrentSpan("svc.request.id", entry.id)
  return yield* answer(entry, requestId, headers, done).pipe(
    Effect.catch((error: EdgeError) => {
      const described = describeError(error)
      return done(entry.finish(described.status, described.body.error.code)).pipe(
        Effect.as(HttpServerResponse.jsonUnsafe(described.body, { status: described.status, headers }))
      )
    }),
    // the client left before a whole answer was ready
    Effect.onInterrupt(() => done(entry.finish(499, "client_closed")))
  )
})

export const ChatRoutes = Layer.mergeAll(
  HttpRouter.add("POST", "/v1/chat/completions", handler),
  HttpRouter.add("POST", "/chat/completions", handler)
)
