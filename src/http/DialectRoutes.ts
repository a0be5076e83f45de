/**
 * The chat paths, each bound to its dialect; every one runs the same pipeline. A new inbound format is
 * a folder under `dialects/`, its pipeline and its paths here.
 */
import { Effect, Layer } from "effect"
import { HttpRouter } from "effect/http"
import { AnthropicMessages } from "../dialects/anthropic/AnthropicDialect.ts"
import { OpenAiChat } from "../dialects/openai/OpenAiChat.ts"
import { OpenAiResponses } from "../dialects/responses/ResponsesDialect.ts"
import { CountTokensRoute } from "./CountTokensRoute.ts"
import { pipeline } from "./Pipeline.ts"
import { responsesSocket } from "./ResponsesSocket.ts"

/** Each dialect's pipeline, made once (`pipeline` looks its services up then), under its paths. */
const chatRoutes = Effect.gen(function*() {
  const openAiChat = yield* pipeline(OpenAiChat)
  const anthropicMessages = yield* pipeline(AnthropicMessages)
  const openAiResponses = yield* pipeline(OpenAiResponses)
  return [
    HttpRouter.route("POST", "/v1/chat/completions", openAiChat),
    HttpRouter.route("POST", "/chat/completions", openAiChat),
    HttpRouter.route("POST", "/v1/messages", anthropicMessages),
    HttpRouter.route("POST", "/v1/responses", openAiResponses),
    HttpRouter.route("POST", "/responses", openAiResponses),
    // Codex's WebSocket transport (`supports_websockets`): the same requests, over one connection
    HttpRouter.route("GET", "/v1/responses", responsesSocket),
    HttpRouter.route("GET", "/responses", responsesSocket)
  ]
})

export const DialectRoutes = Layer.mergeAll(HttpRouter.addAll(chatRoutes), CountTokensRoute)
