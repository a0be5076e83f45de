/**
 * Why an upstream call failed, in one shape for every adapter. Adapters translate their transport,
 * status and decode failures into these reasons where they enter; the core only reads `retryable`
 * (to fail over) and the edge maps each reason to a status once.
 */
import { Schema } from "effect"

/** The provider answered with a non-2xx status. 4xx are passed to the client as they are. */
export class UpstreamStatus extends Schema.TaggedError<UpstreamStatus>()("UpstreamStatus", {
  status: Schema.Number,
  message: Schema.String,
  type: Schema.optionalKey(Schema.String),
  code: Schema.optionalKey(Schema.NullOr(Schema.String)),
  param: Schema.optionalKey(Schema.NullOr(Schema.String))
}) {
  get retryable(): boolean {
    return this.status === 408 || this.status === 429 || this.status >= 500
  }
}

/** The connection failed or broke (refused, reset, DNS). */
export class UpstreamUnreachable extends Schema.TaggedError<UpstreamUnreachable>()("UpstreamUnreachable", {
  message: Schema.String
}) {
  get retryable(): boolean {
    return true
  }
}

export const TimeoutPhase = Schema.Literals(["connect", "first_byte", "idle", "total"])
export type TimeoutPhase = typeof TimeoutPhase.Type

export class UpstreamTimeout extends Schema.TaggedError<UpstreamTimeout>()("UpstreamTimeout", {
  phase: TimeoutPhase
}) {
  get retryable(): boolean {
    return true
  }
}

/** The provider answered 2xx with something that is not the wire format it promised. */
export class UpstreamBadResponse extends Schema.TaggedError<UpstreamBadResponse>()("UpstreamBadResponse", {
  message: Schema.String
}) {
  get retryable(): boolean {
    return true
  }
}

/** The provider is routed but cannot be called (for example its API key is not configured). */
export class ProviderUnavailable extends Schema.TaggedError<ProviderUnavailable>()("ProviderUnavailable", {
  message: Schema.String
}) {
  get retryable(): boolean {
    return true
  }
}

export class ProviderError extends Schema.TaggedError<ProviderError>()("ProviderError", {
  provider: Schema.String,
  reason: Schema.Union([UpstreamStatus, UpstreamUnreachable, UpstreamTimeout, UpstreamBadResponse, ProviderUnavailable])
}) {
  get retryable(): boolean {
    return this.reason.retryable
  }
}
