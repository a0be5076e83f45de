/**
 * `POST /v1/chat/completions` and its alias `POST /chat/completions`: authenticate, read and check the
 * body, then answer whole or as server-sent events. Typed errors become OpenAI-shaped JSON here.
 */
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { Auth } from "../auth/Auth.ts"
import { ChatCompletions } from "../chat/ChatCompletions.ts"
import { parseChatCall } from "../chat/ChatRequest.ts"
import { renderChunks, renderCompletion, renderSharedToolReport } from "../chat/ChatResponse.ts"
import { newId, randomBase62 } from "../Ids.ts"
import { respondWithErrors } from "./ErrorResponse.ts"
import { readJsonBody } from "./JsonBody.ts"
import { sseResponse } from "./Sse.ts"

/** The caller's request id when it sent a sane one, so traces line up across services. */
const requestIdOf = (header: string | undefined) =>
  header !== undefined && /^[\w.:-]{1,128}$/.test(header) ? header : newId("req")

const handler = Effect.gen(function*() {
  const auth = yield* Auth
  const chat = yield* ChatCompletions
  const request = yield* HttpServerRequest.HttpServerRequest
  const caller = yield* auth.authenticate(request.headers["authorization"])
  const call = yield* parseChatCall(yield* readJsonBody)
  const requestId = requestIdOf(request.headers["x-request-id"])
  const identity = { id: `chatcmpl-${randomBase62(24)}`, created: Math.floor(Date.now() / 1000), model: call.model }
  const headers = { "x-request-id": requestId }
  const context = { call, caller, requestId }
  if (!call.stream) {
    const result = yield* chat.complete(context)
    return HttpServerResponse.jsonUnsafe(renderCompletion(identity, result.completion, result), { headers })
  }
  const result = yield* chat.stream(context)
  const trailer = () => renderSharedToolReport(result.summary)
  return sseResponse(renderChunks(identity, call.includeUsage, result.chunks, undefined, trailer), headers)
}).pipe(respondWithErrors)

export const ChatRoutes = Layer.mergeAll(
  HttpRouter.add("POST", "/v1/chat/completions", handler),
  HttpRouter.add("POST", "/chat/completions", handler)
)
