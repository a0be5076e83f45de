/**
 * The chat paths, each bound to its dialect; every one runs the same pipeline. A new inbound format is
 * a folder under `dialects/` and a line here.
 */
import { Layer } from "effect"
import { HttpRouter } from "effect/http"
import { OpenAiChat } from "../dialects/openai/OpenAiChat.ts"
import { pipeline } from "./Pipeline.ts"

const openAiChat = pipeline(OpenAiChat)

export const DialectRoutes = Layer.mergeAll(
  HttpRouter.add("POST", "/v1/chat/completions", openAiChat),
  HttpRouter.add("POST", "/chat/completions", openAiChat)
)
