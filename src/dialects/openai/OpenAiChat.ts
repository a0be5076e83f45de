/**
 * OpenAI's chat-completions format as a dialect: `POST /v1/chat/completions`. The gateway's model is
 * written in this format's shapes, so decoding keeps the client's fields as they are and answers cost
 * no translation.
 */
import { bearerToken } from "../../auth/Auth.ts"
import type { Dialect } from "../../core/Dialect.ts"
import { randomBase62 } from "../../Ids.ts"
import { parseChatCall } from "./ChatRequest.ts"
import { renderCompletion, renderFrames, renderSharedToolReport } from "./ChatResponse.ts"
import { openAiErrorBody } from "./OpenAiErrors.ts"

export const OpenAiChat: Dialect = {
  name: "openai-chat",
  apiKey: (headers) => bearerToken(headers["authorization"]),
  decode: (json) => parseChatCall(json),
  identity: (call) => ({
    id: `chatcmpl-${randomBase62(24)}`,
    created: Math.floor(Date.now() / 1000),
    model: call.model
  }),
  encodeAnswer: (identity, _call, answer) => renderCompletion(identity, answer.completion, answer),
  encodeStream: (identity, call, { chunks, outcome }) =>
    renderFrames(chunks, {
      identity,
      includeUsage: call.includeUsage,
      trailer: () => renderSharedToolReport(outcome())
    }),
  streamError: (problem) => `data: ${JSON.stringify(openAiErrorBody(problem))}\n\n`,
  errorBody: (problem) => ({ status: problem.status, body: openAiErrorBody(problem) })
}
