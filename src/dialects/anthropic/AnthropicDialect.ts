/**
 * Anthropic's Messages API as a dialect: `POST /v1/messages`, what Claude Code and the Anthropic SDKs
 * send, decoded and answered by the mapping of docs/architecture.md ("The gateway's own model"). The key comes in
 * `x-api-key` (the SDKs' header), else `Authorization: Bearer` (what a proxy setting such as Claude
 * Code's `ANTHROPIC_AUTH_TOKEN` sends).
 */
import { bearerToken } from "../../auth/Auth.ts"
import type { Dialect } from "../../core/Dialect.ts"
import { encodeMessage } from "./MessagesAnswer.ts"
import { messagesError, messagesStreamError } from "./MessagesErrors.ts"
import { messageId } from "./MessagesIds.ts"
import { parseMessagesCall } from "./MessagesRequest.ts"
import { encodeMessageStream } from "./MessagesStream.ts"

export const AnthropicMessages: Dialect = {
  name: "anthropic-messages",
  // an empty x-api-key is no key: a client that sets both sends its real one as a bearer token
  apiKey: (headers) => headers["x-api-key"] || bearerToken(headers["authorization"]),
  decode: (json, headers) => parseMessagesCall(json, headers),
  identity: (call) => ({ id: messageId(), created: Math.floor(Date.now() / 1000), model: call.model }),
  encodeAnswer: (identity, _call, answer) => encodeMessage(identity, answer),
  encodeStream: encodeMessageStream,
  streamError: messagesStreamError,
  errorBody: messagesError
}
