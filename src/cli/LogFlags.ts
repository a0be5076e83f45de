/**
 * The request-log filter flags `requests list` and `analytics` share, and the text both print. Values
 * are passed on as typed: the admin API's parsing checks them (on the store too), so a bad `--status` or
 * `--from` is refused with the API's own message, naming its parameter (`status`, `from`, `key_id`, ...).
 */
import { Option } from "effect"
import { Flag } from "effect/cli"
import type { RequestFilterInput } from "./LogQuery.ts"

const optionalString = (name: string, metavar: string, description: string) =>
  Flag.String(name).pipe(Flag.withDescription(description), Flag.withMetavar(metavar), Flag.optional)

export const filterFlags = {
  tags: Flag.String("tag").pipe(
    Flag.withDescription(
      "Only requests with this tag; repeat it for several (any of them, or all with --tag-mode all)"
    ),
    Flag.withMetavar("tag"),
    Flag.atLeast(1),
    Flag.optional
  ),
  tagMode: optionalString("tag-mode", "any|all", "With several --tag, match any of them (the default) or all"),
  model: optionalString(
    "model",
    "model",
    "Only requests for this model, requested (openai/gpt-4o) or reported (gpt-4o)"
  ),
  key: optionalString("key", "key_id", "Only requests made with this API key"),
  session: optionalString(
    "session",
    "session_id",
    "Only requests of this client session (Claude Code's X-Claude-Code-Session-Id)"
  ),
  status: optionalString(
    "status",
    "404|4xx|5xx|error",
    "Only requests answered with this status, class, or any error (>= 400)"
  ),
  from: optionalString(
    "from",
    "date_time",
    "Only requests at or after this time: an ISO 8601 date (UTC midnight) or date-time with a zone"
  ),
  to: optionalString("to", "date_time", "Only requests before this time (exclusive), like --from")
} as const

export interface FilterFlags {
  readonly tags: Option.Option<ReadonlyArray<string>>
  readonly tagMode: Option.Option<string>
  readonly model: Option.Option<string>
  readonly key: Option.Option<string>
  readonly session: Option.Option<string>
  readonly status: Option.Option<string>
  readonly from: Option.Option<string>
  readonly to: Option.Option<string>
}

export const filterInput = (flags: FilterFlags): RequestFilterInput => ({
  ...Option.match(flags.tags, { onNone: () => ({}), onSome: (tags) => ({ tags }) }),
  ...Option.match(flags.tagMode, { onNone: () => ({}), onSome: (tagMode) => ({ tagMode }) }),
  ...Option.match(flags.model, { onNone: () => ({}), onSome: (model) => ({ model }) }),
  ...Option.match(flags.key, { onNone: () => ({}), onSome: (keyId) => ({ keyId }) }),
  ...Option.match(flags.session, { onNone: () => ({}), onSome: (sessionId) => ({ sessionId }) }),
  ...Option.match(flags.status, { onNone: () => ({}), onSome: (status) => ({ status }) }),
  ...Option.match(flags.from, { onNone: () => ({}), onSome: (from) => ({ from }) }),
  ...Option.match(flags.to, { onNone: () => ({}), onSome: (to) => ({ to }) })
})

/** What to say when nothing matched: whether filters narrowed it changes the advice. */
export const noRequests = (orgId: string, filtered: boolean): string =>
  filtered
    ? `No requests of organization ${orgId} match these filters.`
    : `No requests logged for organization ${orgId} yet.`

/**
 * Milliseconds as a person reads them: to a hundredth at most (a measured 3.3367330000000948 → 3.34;
 * percentiles interpolate: 789.9999999 → 790).
 */
export const ms = (value: number): string => String(Math.round(value * 100) / 100)
