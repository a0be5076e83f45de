/**
 * Anthropic's Messages API as a dialect: `POST /v1/messages`, what Claude Code and the Anthropic SDKs
 * send. The key comes in `x-api-key` (or `Authorization: Bearer`).
 */
import { bearerToken } from "../../auth/Auth.ts"
import type { Dialect } from "../../core/Dialect.ts"
import { randomBase62 } from "../../Ids.ts"
import { encodeMessage } from "./MessagesAnswer.ts"
import { messagesError, messagesStreamError } from "./MessagesErrors.ts"
import { parseMessagesCall } from "./MessagesRequest.ts"
import { encodeMessageStream } from "./MessagesStream.ts"

export const AnthropicMessages: Dialect = {
  name: "anthropic-messages",
  apiKey: (headers) => headers["x-api-key"] ?? bearerToken(headers["authorization"]),
  decode: (json, headers) => parseMessagesCall(json, headers),
  identity: (call) => ({ id: `msg_${randomBase62(24)}`, created: Math.floor(Date.now() / 1000), model: call.model }),
  encodeAnswer: (identity, _call, answer) => encodeMessage(identity, answer),
  encodeStream: encodeMessageStream,
  streamError: messagesStreamError,
  errorBody: messagesError
}
