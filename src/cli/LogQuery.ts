/**
 * The request-log filters as typed on the command line, turned into the admin API's query parameters.
 * Both ways to the data start here: `layerHttp` sends them as the query string, the store path reads
 * them with the routes' own parsing (`parseListParams` / `parseAnalyticsParams`), so a bad value is
 * refused with the same words whichever way the command went. Nothing is checked here.
 */
import type { QueryParams } from "../logs/RequestQueryParams.ts"

/** What requests to look at; every part given must hold. Values as typed, checked by the admin API. */
export interface RequestFilterInput {
  /** `tag` (repeatable): by default a request with at least one of them. */
  readonly tags?: ReadonlyArray<string>
  /** `tag_mode`: `any` or `all`. */
  readonly tagMode?: string
  /** `model`: the requested or the reported model. */
  readonly model?: string
  readonly keyId?: string
  /** `session_id`: a client's session (Claude Code's `X-Claude-Code-Session-Id`). */
  readonly sessionId?: string
  /** `status`: `404`, `4xx`, `5xx` or `error`. */
  readonly status?: string
  /** ISO 8601 date or date-time with a zone; `from` inclusive, `to` exclusive. */
  readonly from?: string
  readonly to?: string
}

/** A page of `GET /admin/v1/orgs/{org_id}/requests`. */
export interface RequestListInput extends RequestFilterInput {
  /** 1..200; the admin API's default (50) when absent. */
  readonly limit?: number
  /** The previous page's `next_cursor`, as is. */
  readonly cursor?: string
}

const present = (
  entries: ReadonlyArray<readonly [string, string | ReadonlyArray<string> | undefined]>
): QueryParams => {
  const params: Record<string, string | ReadonlyArray<string>> = {}
  for (const [name, value] of entries) if (value !== undefined) params[name] = value
  return params
}

/** The filter's query parameters; one `tag` is a string, several an array (as the router parses them). */
const filterEntries = (input: RequestFilterInput) =>
  [
    [
      "tag",
      input.tags === undefined || input.tags.length === 0
        ? undefined
        : input.tags.length === 1
        ? input.tags[0]
        : input.tags
    ],
    ["tag_mode", input.tagMode],
    ["model", input.model],
    ["key_id", input.keyId],
    ["session_id", input.sessionId],
    ["status", input.status],
    ["from", input.from],
    ["to", input.to]
  ] as const

export const listParams = (input: RequestListInput): QueryParams =>
  present([
    ...filterEntries(input),
    ["limit", input.limit === undefined ? undefined : String(input.limit)],
    ["cursor", input.cursor]
  ])

export const analyticsParams = (groupBy: string, input: RequestFilterInput): QueryParams =>
  present([["group_by", groupBy], ...filterEntries(input)])

/** `?a=1&tag=x&tag=y`, or nothing when there are no parameters. */
export const queryString = (params: QueryParams): string => {
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries(params)) {
    for (const one of typeof value === "string" ? [value] : value) search.append(name, one)
  }
  const text = search.toString()
  return text === "" ? "" : `?${text}`
}
