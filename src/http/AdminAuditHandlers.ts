/**
 * The audit group of the admin API: every recorded change (owners), or one organization's (its
 * admins; a viewer reads the org's records, not who changed them). Newest first, filtered by actor,
 * action and time.
 */
import { Effect } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { AdminApi } from "../admin/AdminApi.ts"
import { Audit } from "../audit/Audit.ts"
import { requireAdmin, requireOwner } from "../kernel/Principal.ts"
import { parseAuditParams } from "../logs/RequestQueryParams.ts"
import { Orgs } from "../orgs/Orgs.ts"
import { apiError } from "./AdminHandlers.ts"

export const AuditHandlers = HttpApiBuilder.group(AdminApi, "audit", (handlers) =>
  Effect.gen(function*() {
    const audit = yield* Audit
    const orgs = yield* Orgs
    const records = (orgId: string | undefined) =>
      Effect.gen(function*() {
        const query = yield* parseAuditParams(yield* HttpServerRequest.ParsedSearchParams)
        const data = yield* audit.list({ ...query, orgId })
        return { object: "list" as const, data }
      })
    return handlers
      .handle("list", () => Effect.andThen(requireOwner, records(undefined)).pipe(Effect.mapError(apiError)))
      .handle("org", ({ params }) =>
        Effect.gen(function*() {
          yield* requireAdmin(params.org_id)
          yield* orgs.get(params.org_id)
          return yield* records(params.org_id)
        }).pipe(Effect.mapError(apiError)))
  }))
