/**
 * The chat paths, each bound to its dialect; every one runs the same pipeline. A new inbound format is
 * a folder under `dialects/` and a line here.
 */
import { Layer } from "effect"
import { HttpRouter } from "effect/http"
import { AnthropicMessages } from "../dialects/anthropic/AnthropicDialect.ts"
import { OpenAiChat } from "../dialects/openai/OpenAiChat.ts"
import { OpenAiResponses } from "../dialects/responses/ResponsesDialect.ts"
import { CountTokensRoute } from "./CountTokensRoute.ts"
import { pipeline } from "./Pipeline.ts"
import { responsesSocket } from "./ResponsesSocket.ts"

const openAiChat = pipeline(OpenAiChat)
const anthropicMessages = pipeline(AnthropicMessages)
const openAiResponses = pipeline(OpenAiResponses)

export const DialectRoutes = Layer.mergeAll(
  HttpRouter.add("POST", "/v1/chat/completions", openAiChat),
  HttpRouter.add("POST", "/chat/completions", openAiChat),
  HttpRouter.add("POST", "/v1/messages", anthropicMessages),
  HttpRouter.add("POST", "/v1/responses", openAiResponses),
  HttpRouter.add("POST", "/responses", openAiResponses),
  // Codex's WebSocket transport (`supports_websockets`): the same requests, over one connection
  HttpRouter.add("GET", "/v1/responses", responsesSocket),
  HttpRouter.add("GET", "/responses", responsesSocket),
  CountTokensRoute
)
