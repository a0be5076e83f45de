/**
 * `POST /v1/messages/count_tokens`: the input tokens of a Messages request, as Claude Code asks before
 * it compacts a conversation. The target's own count when its API has one (an Anthropic provider),
 * otherwise the gateway's, with OpenAI's o200k tokenizer (`core/TokenCount.ts`): other gateways answer
 * 404 here for non-Anthropic models, and Claude Code then guesses.
 *
 * It runs the chat routes' edge (`Pipeline.ts`): the key's auth, its requests-per-minute limit (a
 * count bills no tokens, so none are charged), errors in Anthropic's shape, and a row in the request
 * log of kind `count_tokens` (no tokens in it: the count is not usage; `attempts` 1 when the upstream
 * counted, 0 when the gateway did).
 */
import { Effect } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { Auth } from "../auth/Auth.ts"
import { toProviderCall } from "../core/GatewayCore.ts"
import { countConversation } from "../core/TokenCount.ts"
import { AnthropicMessages } from "../dialects/anthropic/AnthropicDialect.ts"
import { emptyUsage } from "../kernel/Canonical.ts"
import { isRecord } from "../kernel/Json.ts"
import { quotaHeaders, RateLimits } from "../limits/RateLimits.ts"
import { Providers } from "../providers/Providers.ts"
import { readJsonBodyOf } from "./JsonBody.ts"
import { edge, type EdgeContext } from "./Pipeline.ts"

const dialect = AnthropicMessages

const count = Effect.fnUntraced(function*({ done, draft, headers, request, requestId }: EdgeContext) {
  const caller = yield* (yield* Auth).authenticateKey(dialect.apiKey(request.headers))
  draft.setCaller(caller)
  const limits = yield* RateLimits
  const answerHeaders = caller.limits === undefined
    ? headers
    : { ...headers, ...quotaHeaders(yield* limits.admit(caller)) }
  const json = yield* readJsonBodyOf(request)
  // counting takes no max_tokens; the Messages decoder wants one
  const body = isRecord(json) && json["max_tokens"] === undefined ? { ...json, max_tokens: 1 } : json
  const call = yield* dialect.decode(body, request.headers)
  draft.requestedModel = call.model
  const [target] = yield* (yield* Providers).resolve(call.model, call.bareModelAuthor)
  const provider = target!.provider
  draft.provider = provider.name
  const inputTokens = provider.countTokens === undefined
    ? yield* countConversation(call.messages, call.tools)
    : yield* provider.countTokens(toProviderCall(call, { modelId: target!.modelId, requestId }))
  yield* done(draft.finish(200, null, {
    usage: emptyUsage,
    attempts: provider.countTokens === undefined ? 0 : 1,
    toolRuns: [],
    provider: provider.name,
    model: target!.modelId
  }))
  return HttpServerResponse.jsonUnsafe({ input_tokens: inputTokens }, { headers: answerHeaders })
})

export const CountTokensRoute = HttpRouter.addAll(
  Effect.map(edge(dialect, "count_tokens", count), (handler) => [
    HttpRouter.route("POST", "/v1/messages/count_tokens", handler)
  ])
)
