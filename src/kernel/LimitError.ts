/**
 * A request refused because a key's or an organization's rate limit or token budget is used up; the
 * edge answers 429 with `Retry-After` (`rate_limit_exceeded` for the per-minute limits,
 * `budget_exceeded` for the daily and monthly budgets), in the client's own format.
 */
import { Schema } from "effect"
import { LIMIT_NAMES } from "./Limits.ts"

export class LimitExceeded extends Schema.TaggedError<LimitExceeded>()("LimitExceeded", {
  /** Whose limit: the key's own or its organization's. */
  scope: Schema.Literals(["key", "org"]),
  kind: Schema.Literals(LIMIT_NAMES),
  limit: Schema.Number,
  /** Until a request would be let through again. */
  retryAfterMs: Schema.Number
}) {}

export class LimitError extends Schema.TaggedError<LimitError>()("LimitError", {
  reason: LimitExceeded
}) {}
