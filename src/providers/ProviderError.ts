/**
 * Why an upstream call failed, in one shape for every adapter. Adapters translate their transport,
 * status and decode failures into these reasons where they enter; the core only reads `next` (what
 * to do after the failure: the README's "Retries and failover" table) and the edge maps each reason
 * to a status once.
 */
import { Schema } from "effect"

/**
 * What follows a failed attempt: `retry` the same target after a backoff (then the next target),
 * `failover` to the next target at once, or `client`: the answer goes to the client as it is.
 */
export type NextStep = "retry" | "failover" | "client"

/** Statuses that say "try again later", Anthropic's 529 (overloaded) among them. */
const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504, 529])

/** The provider answered with a non-2xx status. 4xx are passed to the client as they are. */
export class UpstreamStatus extends Schema.TaggedError<UpstreamStatus>()("UpstreamStatus", {
  status: Schema.Number,
  message: Schema.String,
  type: Schema.optionalKey(Schema.String),
  code: Schema.optionalKey(Schema.NullOr(Schema.String)),
  param: Schema.optionalKey(Schema.NullOr(Schema.String)),
  /** The upstream's `Retry-After` (or `retry-after-ms`), in milliseconds from when it answered. */
  retryAfterMs: Schema.optionalKey(Schema.Number)
}) {
  get next(): NextStep {
    if (RETRY_STATUSES.has(this.status)) return "retry"
    // 401/403: the gateway's own provider credentials are wrong, which another target may not share;
    // 408: the upstream timed out reading the request, as a timeout of ours would
    if (this.status === 401 || this.status === 403 || this.status === 408 || this.status >= 500) return "failover"
    return "client"
  }
  get retryable(): boolean {
    return this.next !== "client"
  }
}

/** `reason` with its message or its wait changed, every other field kept. */
export const changedStatus = (
  reason: UpstreamStatus,
  change: { readonly message?: string; readonly retryAfterMs?: number }
): UpstreamStatus => {
  const retryAfterMs = change.retryAfterMs ?? reason.retryAfterMs
  return new UpstreamStatus({
    status: reason.status,
    message: change.message ?? reason.message,
    ...(reason.type === undefined ? {} : { type: reason.type }),
    ...(reason.code === undefined ? {} : { code: reason.code }),
    ...(reason.param === undefined ? {} : { param: reason.param }),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs })
  })
}

/** The connection failed or broke (refused, reset, DNS). */
export class UpstreamUnreachable extends Schema.TaggedError<UpstreamUnreachable>()("UpstreamUnreachable", {
  message: Schema.String
}) {
  get next(): NextStep {
    return "failover"
  }
  get retryable(): boolean {
    return true
  }
}

export const TimeoutPhase = Schema.Literals(["connect", "first_byte", "idle", "total"])
export type TimeoutPhase = typeof TimeoutPhase.Type

export class UpstreamTimeout extends Schema.TaggedError<UpstreamTimeout>()("UpstreamTimeout", {
  phase: TimeoutPhase
}) {
  get next(): NextStep {
    return "failover"
  }
  get retryable(): boolean {
    return true
  }
}

/** The provider answered 2xx with something that is not the wire format it promised. */
export class UpstreamBadResponse extends Schema.TaggedError<UpstreamBadResponse>()("UpstreamBadResponse", {
  message: Schema.String
}) {
  get next(): NextStep {
    return "failover"
  }
  get retryable(): boolean {
    return true
  }
}

/** The provider is routed but cannot be called (for example its API key is not configured). */
export class ProviderUnavailable extends Schema.TaggedError<ProviderUnavailable>()("ProviderUnavailable", {
  message: Schema.String
}) {
  get next(): NextStep {
    return "failover"
  }
  get retryable(): boolean {
    return true
  }
}

/** The target's circuit is open after consecutive failures: it was not called. */
export class TargetOpen extends Schema.TaggedError<TargetOpen>()("TargetOpen", {
  /** The target's address (`author/model`). */
  target: Schema.String,
  /** Until its next probe is let through. */
  retryAfterMs: Schema.Number
}) {
  get next(): NextStep {
    return "failover"
  }
  get retryable(): boolean {
    return true
  }
}

export class ProviderError extends Schema.TaggedError<ProviderError>()("ProviderError", {
  provider: Schema.String,
  reason: Schema.Union([
    UpstreamStatus,
    UpstreamUnreachable,
    UpstreamTimeout,
    UpstreamBadResponse,
    ProviderUnavailable,
    TargetOpen
  ])
}) {
  get next(): NextStep {
    return this.reason.next
  }
  get retryable(): boolean {
    return this.reason.retryable
  }
}
