/**
 * OpenAI's Responses API as a dialect: `POST /v1/responses`, what Codex, the `openai` SDK's
 * `responses.create` and the Vercel AI SDK's default OpenAI model send. The key comes as a bearer token;
 * errors before the stream have OpenAI's error shape, a failure after it began is `response.failed`.
 */
import { bearerToken } from "../../auth/Auth.ts"
import type { Dialect } from "../../core/Dialect.ts"
import { openAiErrorBody } from "../openai/OpenAiErrors.ts"
import { encodeResponse, responseId } from "./ResponsesAnswer.ts"
import { parseResponsesCall } from "./ResponsesRequest.ts"
import { encodeResponseStream, responsesStreamError } from "./ResponsesStream.ts"

export const OpenAiResponses: Dialect = {
  name: "openai-responses",
  apiKey: (headers) => bearerToken(headers["authorization"]),
  decode: (json, headers) => parseResponsesCall(json, headers),
  identity: (call) => ({ id: responseId(), created: Math.floor(Date.now() / 1000), model: call.model }),
  encodeAnswer: encodeResponse,
  encodeStream: encodeResponseStream,
  streamError: responsesStreamError,
  errorBody: (problem) => ({ status: problem.status, body: openAiErrorBody(problem) })
}
