/**
 * The query strings of the request-log admin routes, read into a `RequestFilter`, a page and a
 * grouping. Every problem is a 400 naming the parameter; unknown parameters are refused too, so a typo
 * (`tags=` for `tag=`) cannot silently return the unfiltered log.
 */
import { Effect } from "effect"
import { GROUP_BY, type GroupBy, isGroupBy } from "../kernel/GroupBy.ts"
import { RequestError } from "../kernel/RequestError.ts"
import {
  type Cursor,
  decodeCursor,
  DEFAULT_LIMIT,
  MAX_LIMIT,
  type PageRequest,
  parseInstant,
  type RequestFilter,
  type StatusFilter,
  type TagFilter,
  type TagMode
} from "./RequestFilter.ts"

/** Query parameters as the router parses them: a repeated name gives an array. */
export type QueryParams = Readonly<Record<string, string | ReadonlyArray<string>>>

/** Bounds on what one query may ask for, so one request cannot build an unbounded statement. */
const MAX_TAGS = 50
const MAX_VALUE_LENGTH = 512

const FILTER_PARAMS = ["tag", "tag_mode", "model", "key_id", "session_id", "status", "from", "to"] as const
const LIST_PARAMS: ReadonlyArray<string> = [...FILTER_PARAMS, "limit", "cursor"]
const ANALYTICS_PARAMS: ReadonlyArray<string> = [...FILTER_PARAMS, "group_by"]
const SESSIONS_PARAMS: ReadonlyArray<string> = [...FILTER_PARAMS, "limit"]

const invalid = (param: string, why: string) =>
  RequestError.invalidField(param, `Invalid value for '${param}': ${why}.`)

const refuseUnknown = (params: QueryParams, known: ReadonlyArray<string>) => {
  const unknown = Object.keys(params).find((name) => !known.includes(name))
  return unknown === undefined
    ? Effect.void
    : Effect.fail(RequestError.invalidField(
      unknown,
      `Unknown query parameter '${unknown}'; this route accepts ${known.map((name) => `'${name}'`).join(", ")}.`,
      "unknown_parameter"
    ))
}

const checkValue = (param: string, value: string): Effect.Effect<string, RequestError> =>
  value === ""
    ? Effect.fail(invalid(param, "expected a non-empty value"))
    : value.length > MAX_VALUE_LENGTH
    ? Effect.fail(invalid(param, `expected at most ${MAX_VALUE_LENGTH} characters`))
    : Effect.succeed(value)

/** A parameter given at most once; `undefined` when absent. */
const single = (params: QueryParams, param: string): Effect.Effect<string | undefined, RequestError> => {
  const value = params[param]
  if (value === undefined) return Effect.succeed(undefined)
  if (typeof value !== "string") return Effect.fail(invalid(param, "given more than once"))
  return checkValue(param, value)
}

const isTagMode = (text: string): text is TagMode => text === "any" || text === "all"

const parseTags = Effect.fnUntraced(function*(params: QueryParams) {
  const raw = params["tag"]
  const mode = yield* single(params, "tag_mode")
  if (mode !== undefined && !isTagMode(mode)) return yield* invalid("tag_mode", "expected 'any' or 'all'")
  const values = raw === undefined ? [] : typeof raw === "string" ? [raw] : [...raw]
  if (values.length > MAX_TAGS) return yield* invalid("tag", `expected at most ${MAX_TAGS} tags`)
  for (const value of values) yield* checkValue("tag", value)
  const [first, ...rest] = values
  if (first === undefined) return undefined
  const tags: TagFilter = { values: [first, ...rest], mode: mode ?? "any" }
  return tags
})

const parseStatus = (text: string): StatusFilter | undefined => {
  if (text === "error") return { _tag: "Error" }
  if (/^[1-5]xx$/i.test(text)) return { _tag: "Class", hundreds: Number(text[0]) }
  if (/^[1-5]\d\d$/.test(text)) return { _tag: "Exact", status: Number(text) }
  return undefined
}

const parseTime = Effect.fnUntraced(function*(params: QueryParams, param: "from" | "to") {
  const text = yield* single(params, param)
  if (text === undefined) return undefined
  const date = parseInstant(text)
  if (date === undefined) {
    return yield* invalid(
      param,
      "expected an ISO 8601 date or date-time with a time zone, such as 2026-01-31 or 2026-01-31T12:00:00Z"
    )
  }
  return date
})

const parseFilter = Effect.fnUntraced(function*(params: QueryParams) {
  const tags = yield* parseTags(params)
  const model = yield* single(params, "model")
  const keyId = yield* single(params, "key_id")
  const sessionId = yield* single(params, "session_id")
  const statusText = yield* single(params, "status")
  const status = statusText === undefined ? undefined : parseStatus(statusText)
  if (statusText !== undefined && status === undefined) {
    return yield* invalid("status", "expected a status code such as 404, a class such as 4xx or 5xx, or 'error'")
  }
  const from = yield* parseTime(params, "from")
  const to = yield* parseTime(params, "to")
  if (from !== undefined && to !== undefined && to.getTime() <= from.getTime()) {
    return yield* invalid("to", "expected a time after 'from'")
  }
  const filter: RequestFilter = {
    ...(tags === undefined ? {} : { tags }),
    ...(model === undefined ? {} : { model }),
    ...(keyId === undefined ? {} : { keyId }),
    ...(sessionId === undefined ? {} : { sessionId }),
    ...(status === undefined ? {} : { status }),
    ...(from === undefined ? {} : { from }),
    ...(to === undefined ? {} : { to })
  }
  return filter
})

const parsePage = Effect.fnUntraced(function*(params: QueryParams) {
  const limitText = yield* single(params, "limit")
  const limit = limitText === undefined ? DEFAULT_LIMIT : /^\d{1,3}$/.test(limitText) ? Number(limitText) : 0
  if (limit < 1 || limit > MAX_LIMIT) return yield* invalid("limit", `expected an integer from 1 to ${MAX_LIMIT}`)
  const cursorText = yield* single(params, "cursor")
  const cursor: Cursor | undefined = cursorText === undefined ? undefined : decodeCursor(cursorText)
  if (cursorText !== undefined && cursor === undefined) {
    return yield* invalid("cursor", "expected the next_cursor of a previous page, unchanged")
  }
  const page: PageRequest = cursor === undefined ? { limit } : { limit, cursor }
  return page
})

/** `GET …/requests`: the filter and the page. */
export const parseListParams = Effect.fnUntraced(function*(params: QueryParams) {
  yield* refuseUnknown(params, LIST_PARAMS)
  return { filter: yield* parseFilter(params), page: yield* parsePage(params) }
})

/** `GET …/sessions`: the filter and how many sessions (one page, newest activity first). */
export const parseSessionsParams = Effect.fnUntraced(function*(params: QueryParams) {
  yield* refuseUnknown(params, SESSIONS_PARAMS)
  return { filter: yield* parseFilter(params), limit: (yield* parsePage(params)).limit }
})

/** A list that takes only `limit` (`GET …/alerts`): 1..200, default 50. */
export const parseLimitParams = Effect.fnUntraced(function*(params: QueryParams) {
  yield* refuseUnknown(params, ["limit"])
  return (yield* parsePage(params)).limit
})

/** `GET /audit` and `/orgs/{id}/audit`: who, what, when, and how many. */
export const parseAuditParams = Effect.fnUntraced(function*(params: QueryParams) {
  yield* refuseUnknown(params, ["actor", "action", "from", "to", "limit"])
  const actor = yield* single(params, "actor")
  const action = yield* single(params, "action")
  const from = yield* parseTime(params, "from")
  const to = yield* parseTime(params, "to")
  if (from !== undefined && to !== undefined && to.getTime() <= from.getTime()) {
    return yield* invalid("to", "expected a time after 'from'")
  }
  const { limit } = yield* parsePage(params)
  return { actor, action, from, to, limit }
})

/** `GET …/analytics`: the grouping (required) and the filter. */
export const parseAnalyticsParams = Effect.fnUntraced(function*(params: QueryParams) {
  yield* refuseUnknown(params, ANALYTICS_PARAMS)
  const groupBy = yield* single(params, "group_by")
  if (groupBy === undefined) {
    return yield* RequestError.invalidField(
      "group_by",
      `Missing required parameter: 'group_by' (one of ${GROUP_BY.join(", ")}).`,
      "missing_required_parameter"
    )
  }
  if (!isGroupBy(groupBy)) return yield* invalid("group_by", `expected one of ${GROUP_BY.join(", ")}`)
  const group: GroupBy = groupBy
  return { groupBy: group, filter: yield* parseFilter(params) }
})
