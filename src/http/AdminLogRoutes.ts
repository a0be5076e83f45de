/**
 * Admin routes for the request log (admin token required, like every admin route):
 *
 * - `GET /admin/v1/orgs/{org_id}/requests` → `{"object":"list","data":[request],"next_cursor":string|null}`,
 *   newest first. Filters, all optional and combined with AND: `tag` (repeatable) with `tag_mode=any`
 *   (default: at least one of the tags) or `all` (every tag); `model` (the requested *or* the reported
 *   model); `key_id`; `status` (`404`, a class `4xx`/`5xx`, or `error` = status >= 400); `from`
 *   (inclusive) and `to` (exclusive), ISO 8601 dates (UTC midnight) or date-times with a zone. Paging:
 *   `limit` 1..200 (default 50) and `cursor`, the previous page's `next_cursor` as is. A request is
 *   snake_case JSON with ISO times; `prompt_text`/`completion_text` appear only when stored.
 * - `GET /admin/v1/orgs/{org_id}/requests/{request_id}` → one request; 404 when it is not this org's.
 * - `GET /admin/v1/orgs/{org_id}/analytics?group_by=none|tag|model|key|session|hour|day|status` + the same filters →
 *   `{"object":"list","group_by","data":[{group, requests, errors, prompt_tokens, completion_tokens,
 *   cached_tokens, reasoning_tokens, total_tokens, p50_latency_ms, p95_latency_ms}],"has_more"}`.
 *   `group` is a string or null. By tag, a request counts once in the group of *each* of its tags (so the
 *   groups' requests add up to more than the requests), untagged requests form the null group, and a tag
 *   filter selects requests, not groups: their other tags show too. By model: the reported model, else
 *   the requested one. `none`: one null group, the totals. By hour: `YYYY-MM-DDTHH:00:00Z`; by day: the UTC
 *   date `YYYY-MM-DD`. Hours, days and statuses come in order, the other
 *   groupings busiest first; at most 1000 groups (`has_more` says when there are more).
 * - `PATCH /admin/v1/orgs/{org_id}` `{"log_content": boolean, "compression": level | null}` (either or
 *   both) → the org: turns storing prompt and completion text in the log on or off for the org, and sets
 *   its compression level (`off`, `shadow`, `safe`, `aggressive`; `null`: the gateway's).
 *
 * A bad or unknown query parameter is a 400 naming it; an unknown org is a 404.
 */
import { Effect, Layer } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { parseOrgUpdate } from "../admin/AdminInput.ts"
import { RequestQueries } from "../logs/RequestQueries.ts"
import { parseAnalyticsParams, parseListParams } from "../logs/RequestQueryParams.ts"
import { Orgs } from "../orgs/Orgs.ts"
import { adminRoute, pathParam } from "./AdminRoute.ts"
import { readJsonBody } from "./JsonBody.ts"

/** The org of the path, checked to exist so an unknown org is a 404 rather than an empty list. */
const knownOrg = Effect.gen(function*() {
  const orgId = yield* pathParam("org_id")
  yield* (yield* Orgs).get(orgId)
  return orgId
})

/** `GET /admin/v1/orgs/{org_id}/requests?tag=&tag_mode=&model=&key_id=&status=&from=&to=&limit=&cursor=` */
const listRequests = adminRoute(
  "GET",
  "/orgs/:org_id/requests",
  Effect.gen(function*() {
    const { filter, page } = yield* parseListParams(yield* HttpServerRequest.ParsedSearchParams)
    const orgId = yield* knownOrg
    return HttpServerResponse.jsonUnsafe(yield* (yield* RequestQueries).list(orgId, filter, page))
  })
)

const getRequest = adminRoute(
  "GET",
  "/orgs/:org_id/requests/:request_id",
  Effect.gen(function*() {
    const orgId = yield* knownOrg
    const requestId = yield* pathParam("request_id")
    return HttpServerResponse.jsonUnsafe(yield* (yield* RequestQueries).get(orgId, requestId))
  })
)

/** `GET /admin/v1/orgs/{org_id}/analytics?group_by=none|tag|model|key|session|hour|day|status` + the list's filters. */
const analytics = adminRoute(
  "GET",
  "/orgs/:org_id/analytics",
  Effect.gen(function*() {
    const { filter, groupBy } = yield* parseAnalyticsParams(yield* HttpServerRequest.ParsedSearchParams)
    const orgId = yield* knownOrg
    return HttpServerResponse.jsonUnsafe(yield* (yield* RequestQueries).analytics(orgId, groupBy, filter))
  })
)

/** `PATCH /admin/v1/orgs/{org_id}` `{"log_content": true, "compression": "safe"}`: the org as it now is. */
const updateOrg = adminRoute(
  "PATCH",
  "/orgs/:org_id",
  Effect.gen(function*() {
    const orgId = yield* pathParam("org_id")
    const changes = yield* parseOrgUpdate(yield* readJsonBody)
    return HttpServerResponse.jsonUnsafe(yield* (yield* Orgs).update(orgId, changes))
  })
)

export const AdminLogRoutes = Layer.mergeAll(listRequests, getRequest, analytics, updateOrg)
