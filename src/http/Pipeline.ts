/**
 * The one request pipeline every chat dialect's route runs: the key from the dialect's header, auth,
 * the body read within its limit and decoded by the dialect, tags, the core (shared tools, failover,
 * the tool loop), the answer written by the dialect, whole or as server-sent events, and, however the
 * request ends (answered, refused, failed, abandoned by the client), one row in the request log and in
 * the metrics, built from the core's outcome. Errors are written once, by the dialect, in its client's
 * own shape. `edge` is the part every client route shares (count_tokens runs it too).
 */
import { Effect } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { Auth } from "../auth/Auth.ts"
import { type CompressionFacts, factsOf, isCounting, uncountedFacts } from "../compression/RequestCompression.ts"
import { GatewayConfig, type GatewaySettings } from "../Config.ts"
import type { Dialect } from "../core/Dialect.ts"
import { GatewayCore } from "../core/GatewayCore.ts"
import type { Outcome } from "../core/Outcome.ts"
import { describeError, type EdgeError } from "../core/Problem.ts"
import { mergeTags } from "../core/Tags.ts"
import { newTimeOrderedId } from "../Ids.ts"
import type { Caller } from "../kernel/Caller.ts"
import { COMPRESSION_LEVELS, type CompressionLevel, isCompressionLevel } from "../kernel/CompressionLevel.ts"
import { RequestError } from "../kernel/RequestError.ts"
import { quotaHeaders, RateLimits } from "../limits/RateLimits.ts"
import { RequestDraft, sessionOf } from "../logs/RequestDraft.ts"
import { RequestLog } from "../logs/RequestLog.ts"
import type { RequestKind, RequestRecord } from "../logs/RequestRecord.ts"
import { Metrics } from "../observability/Metrics.ts"
import { type Cost, dollars } from "../prices/Cost.ts"
import { readJsonBodyOf } from "./JsonBody.ts"
import { sseResponse } from "./Sse.ts"

/** The caller's request id when it sent a sane one, so traces line up across services. */
const requestIdOf = (header: string | undefined) =>
  header !== undefined && /^[\w.:-]{1,128}$/.test(header) ? header : undefined

/**
 * One row in the request log, once per request, and the metrics of a chat request (a token count has
 * no tokens, and its latency would blur the answers').
 */
const finish = (log: RequestLog["Service"], metrics: Metrics["Service"]) => (record: RequestRecord) => {
  if (record.kind === "completion") metrics.observeRequest(record)
  return log.record(record)
}

/** Longest `x-svc-dropped-fields`: field names are the client's own, and a client's header limit is small. */
const DROPPED_HEADER_MAX = 1_024
const FIELD_NAME_MAX = 80

/** The dropped fields as a header value, each name and the whole bounded; what did not fit is counted. */
export const droppedHeader = (dropped: ReadonlyArray<string>): string => {
  let out = ""
  for (let i = 0; i < dropped.length; i++) {
    const raw = dropped[i]!
    // a header value is visible ASCII; a name of anything else is shown escaped
    const clean = /^[\x20-\x7e]*$/.test(raw) ? raw : JSON.stringify(raw).slice(1, -1).replace(/[^\x20-\x7e]/g, "?")
    const name = clean.length > FIELD_NAME_MAX ? `${clean.slice(0, FIELD_NAME_MAX)}...` : clean
    const next = out === "" ? name : `${out}, ${name}`
    if (next.length > DROPPED_HEADER_MAX) return `${out}, (${dropped.length - i} more)`
    out = next
  }
  return out
}

/**
 * The headers of an answer: the request ids, which provider and model answered after how many upstream
 * calls, what compression saved (o200k tokens, `0` when nothing), the fields left out on the way when
 * there are any, and what it cost when that is known (a whole answer whose prices are).
 */
const answerHeaders = (
  base: Record<string, string>,
  answered: {
    readonly provider: string
    readonly model: string
    readonly attempts: number
    /** The fields left out on the way. */
    readonly dropped: ReadonlyArray<string>
    /** Absent until the answer is whole; null: a price is unknown. */
    readonly cost?: Cost | null | undefined
  },
  compression: CompressionFacts
): Record<string, string> => {
  const dropped = answered.dropped
  const headers: Record<string, string> = {
    ...base,
    "x-svc-provider": answered.provider,
    "x-svc-model": answered.model,
    "x-svc-attempts": String(answered.attempts),
    "x-svc-compression": compression.level,
    "x-svc-tokens-saved": String(compression.saved)
  }
  if (answered.cost !== undefined && answered.cost !== null) headers["x-svc-cost-usd"] = dollars(answered.cost.total)
  if (dropped.length > 0) headers["x-svc-dropped-fields"] = droppedHeader(dropped)
  return headers
}

/**
 * The request's compression level: its header's, else its org's, else the gateway's; a bad header is
 * a 400. Plain code, not an effect: it runs on every request.
 */
const compressionLevel = (
  header: string | undefined,
  caller: Caller,
  fallback: CompressionLevel
): CompressionLevel | RequestError => {
  if (header === undefined) return caller.compression ?? fallback
  const value = header.trim().toLowerCase()
  return isCompressionLevel(value)
    ? value
    : RequestError.invalidField(
      COMPRESSION_HEADER,
      `Invalid value for header '${COMPRESSION_HEADER}': ${JSON.stringify(header.slice(0, 40))}; expected one of ${
        COMPRESSION_LEVELS.join(", ")
      }.`,
      "invalid_compression"
    )
}

const COMPRESSION_HEADER = "x-svc-compression"

/** What compression came to when there is nothing to count (most requests); `undefined` while counting. */
const factsNow = (answer: Outcome, level: CompressionLevel): CompressionFacts | undefined => {
  const report = answer.compression
  if (report === undefined) return uncountedFacts({ level, savings: undefined, shadow: undefined })
  return isCounting(report) ? undefined : uncountedFacts(report)
}

/** What compression came to, once its counting (still running when `factsNow` said `undefined`) is done. */
const countedFacts = (answer: Outcome): Effect.Effect<CompressionFacts> =>
  Effect.promise(() => factsOf(answer.compression!, answer.usage, answer.price ?? null))

/** What a route's work gets from the edge (`edge`). */
export interface EdgeContext {
  readonly request: HttpServerRequest.HttpServerRequest
  readonly config: GatewaySettings
  /** The request's log row in the making; the work fills in what it learns. */
  readonly draft: RequestDraft
  readonly requestId: string
  /** The answer's headers so far; the work adds to them. */
  readonly headers: Record<string, string>
  /** Records the row (and the metrics); call it once, when the answer is known. */
  readonly done: (record: RequestRecord) => Effect.Effect<void>
}

/**
 * The handler of one dialect's route, doing `kind` of work: the request's ids, then `work`, and however
 * it ends (answered, refused, failed, abandoned by the client), one row in the request log of that kind,
 * with refusals written by the dialect in its client's own shape. The services are looked up once, when
 * the route is made: each `yield*` of a service is two steps of Effect's run loop, 16 of the 103 a whole
 * answer took (`bench/steps.ts`). Its per-request body is a generator function made once per route, not
 * per request: a generator function made per request, closing over its data, kept all it closes over
 * alive until a full collection (likely through the map V8 gives each new generator function, born in
 * old space); the bench's young collections kept about a tenth of everything a request allocated, and
 * promoted it.
 */
export const edge = Effect.fnUntraced(function*<E extends EdgeError, R>(
  dialect: Dialect,
  kind: RequestKind,
  work: (context: EdgeContext) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
) {
  const done = finish(yield* RequestLog, yield* Metrics)
  const config = yield* GatewayConfig
  return Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const draft = new RequestDraft(newTimeOrderedId("req"), request.headers["user-agent"], kind)
    draft.sessionId = sessionOf(request.headers)
    const requestId = requestIdOf(request.headers["x-request-id"]) ?? draft.id
    // `x-svc-request-id` finds the request in the log, whatever id the client sent
    const headers = { "x-request-id": requestId, "x-svc-request-id": draft.id }
    yield* Effect.annotateCurrentSpan("svc.request.id", draft.id)
    return yield* work({ request, config, draft, requestId, headers, done }).pipe(
      Effect.catch((error: EdgeError) => {
        // a known key refused (expired, revoked): its org's log has the refusal
        if (error._tag === "AuthError" && "orgId" in error.reason && error.reason.orgId !== undefined) {
          draft.orgId = error.reason.orgId
          draft.keyId = error.reason.keyId ?? null
        }
        const problem = describeError(error)
        const { body, status } = dialect.errorBody(problem)
        const answered: Record<string, string> = problem.retryAfterSeconds === undefined
          ? headers
          : { ...headers, "retry-after": String(problem.retryAfterSeconds) }
        // a body refused for its size may still be arriving: closing the connection stops reading it
        if (status === 413) answered["connection"] = "close"
        return done(draft.finish(status, problem.code)).pipe(
          Effect.as(HttpServerResponse.jsonUnsafe(body, { status, headers: answered }))
        )
      }),
      // the client left before a whole answer was ready
      Effect.onInterrupt(() => done(draft.finish(499, "client_closed")))
    )
  })
})

/** A chat dialect's route: a completion, whole or streamed, through the core; made once per route. */
export const pipeline = Effect.fnUntraced(function*(dialect: Dialect) {
  const auth = yield* Auth
  const limits = yield* RateLimits
  const chat = yield* GatewayCore
  const answer = Effect.fnUntraced(function*({ config, done, draft, headers, request, requestId }: EdgeContext) {
    const caller = yield* auth.authenticateKey(dialect.apiKey(request.headers))
    draft.setCaller(caller)
    if (caller.limits !== undefined) headers = { ...headers, ...quotaHeaders(yield* limits.admit(caller)) }
    const compression = compressionLevel(request.headers[COMPRESSION_HEADER], caller, config.compression)
    if (typeof compression !== "string") return yield* compression
    draft.compressionLevel = compression
    const call = yield* dialect.decode(yield* readJsonBodyOf(request), request.headers)
    draft.requestedModel = call.model
    draft.stream = call.stream
    const tags = yield* mergeTags(call.tags, request.headers["x-svc-tags"])
    draft.tags = tags
    if (draft.keepContent) draft.promptText = JSON.stringify(call.messages)
    const identity = dialect.identity(call)
    const context = {
      call,
      caller,
      requestId,
      compression,
      sessionId: draft.sessionId,
      billed: (spent: RequestDraft["billed"]) => (draft.billed = spent)
    }
    if (!call.stream) {
      const answered = yield* chat.complete(context).pipe(
        // a failure after billed rounds: their spend counts against the budgets as the log counts it
        Effect.tapError(() => {
          const spent = draft.billed
          return spent === undefined || caller.limits === undefined
            ? Effect.void
            : limits.charge(caller, spent.usage.promptTokens + spent.usage.completionTokens, spent.cost?.total ?? null)
        })
      )
      const content = answered.completion.choices[0]?.message.content
      const compressionFacts = factsNow(answered, compression) ?? (yield* countedFacts(answered))
      if (caller.limits !== undefined) {
        yield* limits.charge(
          caller,
          answered.usage.promptTokens + answered.usage.completionTokens,
          answered.cost?.total ?? null
        )
      }
      yield* done(
        draft.finish(200, null, {
          ...answered,
          text: typeof content === "string" ? content : undefined,
          compressionFacts
        })
      )
      return HttpServerResponse.jsonUnsafe(dialect.encodeAnswer(identity, call, answered), {
        headers: answerHeaders(headers, answered, compressionFacts)
      })
    }
    const streaming = yield* chat.stream(context)
    draft.provider = streaming.provider
    const frames = dialect.encodeStream(identity, call, streaming)
    // counted while the upstream worked on the first round: the headers say what it saved
    const started = streaming.outcome()
    const firstRound = factsNow(started, compression) ?? (yield* countedFacts(started))
    // the row is written when the stream ends, whichever way: its last frame, an error frame, the client gone
    return yield* sseResponse(
      frames,
      (problem) => dialect.streamError(problem, identity),
      answerHeaders(
        headers,
        { provider: streaming.provider, model: streaming.model, attempts: started.attempts, dropped: started.dropped },
        firstRound
      ),
      (status, code) => {
        const outcome = streaming.outcome()
        const charged = caller.limits === undefined
          ? Effect.void
          : limits.charge(
            caller,
            outcome.usage.promptTokens + outcome.usage.completionTokens,
            outcome.cost?.total ?? null
          )
        const finish = (compressionFacts: CompressionFacts) =>
          Effect.andThen(charged, done(draft.finish(status, code, { ...outcome, compressionFacts })))
        const now = factsNow(outcome, compression)
        return now !== undefined ? finish(now) : Effect.flatMap(countedFacts(outcome), finish)
      }
    )
  })

  return yield* edge(dialect, "completion", answer)
})
