/**
 * `GET /admin/v1/orgs/{org_id}/alerts`: the org's budget alerts and their delivery. Apart from
 * `AdminHandlers.ts` because it reads `BudgetAlerts`, which only the server runs (it posts webhooks).
 */
import { Effect } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { AdminApi } from "../admin/AdminApi.ts"
import { requireRead } from "../kernel/Principal.ts"
import { BudgetAlerts } from "../limits/BudgetAlerts.ts"
import { parseLimitParams } from "../logs/RequestQueryParams.ts"
import { Orgs } from "../orgs/Orgs.ts"
import { apiError } from "./AdminHandlers.ts"

export const AlertsHandlers = HttpApiBuilder.group(AdminApi, "alerts", (handlers) =>
  Effect.gen(function*() {
    const alerts = yield* BudgetAlerts
    const orgs = yield* Orgs
    return handlers.handle("list", ({ params }) =>
      Effect.gen(function*() {
        yield* requireRead(params.org_id)
        const limit = yield* parseLimitParams(yield* HttpServerRequest.ParsedSearchParams)
        yield* orgs.get(params.org_id)
        return { object: "list" as const, data: yield* alerts.list(params.org_id, limit) }
      }).pipe(Effect.mapError(apiError)))
  }))
