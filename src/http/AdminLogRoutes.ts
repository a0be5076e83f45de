/**
 * Admin routes for the request log: an org's requests (filtered, newest first, cursor-paged), one
 * request's detail, analytics per tag/model/key/day/status, and the org's opt-in for storing prompt and
 * completion text. Query parameters are documented in `RequestQueryParams.ts`; every bad one is a 400
 * naming it, an unknown org a 404.
 */
import { Effect, Layer, Schema } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { Orgs } from "../admin/Orgs.ts"
import { RequestQueries } from "../logs/RequestQueries.ts"
import { parseAnalyticsParams, parseListParams } from "../logs/RequestQueryParams.ts"
import { adminRoute, pathParam } from "./AdminRoute.ts"
import { decodeInput } from "./DecodeInput.ts"
import { readJsonBody } from "./JsonBody.ts"

const SetLogContent = Schema.Struct({ log_content: Schema.Boolean })

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

/** `GET /admin/v1/orgs/{org_id}/analytics?group_by=tag|model|key|day|status` + the list's filters. */
const analytics = adminRoute(
  "GET",
  "/orgs/:org_id/analytics",
  Effect.gen(function*() {
    const { filter, groupBy } = yield* parseAnalyticsParams(yield* HttpServerRequest.ParsedSearchParams)
    const orgId = yield* knownOrg
    return HttpServerResponse.jsonUnsafe(yield* (yield* RequestQueries).analytics(orgId, groupBy, filter))
  })
)

/** `PATCH /admin/v1/orgs/{org_id}` `{"log_content": true}`: the org as it now is. */
const updateOrg = adminRoute(
  "PATCH",
  "/orgs/:org_id",
  Effect.gen(function*() {
    const orgId = yield* pathParam("org_id")
    const input = yield* decodeInput(SetLogContent)(yield* readJsonBody)
    return HttpServerResponse.jsonUnsafe(yield* (yield* Orgs).setLogContent(orgId, input.log_content))
  })
)

export const AdminLogRoutes = Layer.mergeAll(listRequests, getRequest, analytics, updateOrg)
