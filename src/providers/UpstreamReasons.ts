/**
 * Transport and SSE failures as `ProviderError` reasons, the same for every adapter: where they enter,
 * once (a timeout says which phase ran out; a broken or retrying SSE body is a bad response).
 */
import type { Sse } from "effect/encoding"
import {
  type ProviderError,
  ProviderUnavailable,
  UpstreamBadResponse,
  UpstreamTimeout,
  UpstreamUnreachable
} from "./ProviderError.ts"
import type { UpstreamTransportError } from "./UpstreamTransport.ts"

type Reason = ProviderError["reason"]

export const reasonFromTransportError = (error: UpstreamTransportError): Reason => {
  switch (error.kind) {
    case "timeout":
      return new UpstreamTimeout({ phase: error.phase ?? "total" })
    case "empty_body":
      return new UpstreamBadResponse({ message: error.message })
    case "invalid_request":
      return new ProviderUnavailable({ message: error.message })
    case "unreachable":
      return new UpstreamUnreachable({ message: error.message })
  }
}

export const reasonFromSseError = (error: Sse.Retry | Sse.SseError): Reason =>
  error._tag === "Retry"
    // The gateway cannot resume a generation, so a reconnect request is a broken stream.
    ? new UpstreamBadResponse({ message: "upstream sent an SSE retry field; reconnecting is not supported" })
    : new UpstreamBadResponse({ message: error.message })
