/**
 * `POST /v1/messages/count_tokens`: the input tokens of a Messages request, as Claude Code asks before
 * it compacts a conversation. The target's own count when its API has one (an Anthropic provider),
 * otherwise the gateway's, with OpenAI's o200k tokenizer (`core/TokenCount.ts`): other gateways answer
 * 404 here for non-Anthropic models, and Claude Code then guesses.
 */
import { Effect } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { Auth } from "../auth/Auth.ts"
import { toProviderCall } from "../core/ChatCompletions.ts"
import { describeError, type EdgeError } from "../core/Problem.ts"
import { countConversation } from "../core/TokenCount.ts"
import { AnthropicMessages } from "../dialects/anthropic/AnthropicDialect.ts"
import { isRecord } from "../kernel/Json.ts"
import { Providers } from "../providers/Providers.ts"
import { readJsonBody } from "./JsonBody.ts"

const dialect = AnthropicMessages

const count = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  yield* (yield* Auth).authenticateKey(dialect.apiKey(request.headers))
  const json = yield* readJsonBody
  // counting takes no max_tokens; the Messages decoder wants one
  const body = isRecord(json) && json["max_tokens"] === undefined ? { ...json, max_tokens: 1 } : json
  const call = yield* dialect.decode(body, request.headers)
  const [target] = yield* (yield* Providers).resolve(call.model, call.bareModelAuthor)
  const provider = target!.provider
  const inputTokens = provider.countTokens === undefined
    ? yield* countConversation(call.messages, call.tools)
    : yield* provider.countTokens(toProviderCall(call, { modelId: target!.modelId, requestId: "count_tokens" }))
  return HttpServerResponse.jsonUnsafe({ input_tokens: inputTokens })
}).pipe(
  Effect.catch((error: EdgeError) => {
    const { body, status } = dialect.errorBody(describeError(error))
    return Effect.succeed(HttpServerResponse.jsonUnsafe(body, { status }))
  })
)

export const CountTokensRoute = HttpRouter.add("POST", "/v1/messages/count_tokens", count)
