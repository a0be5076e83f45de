/**
 * `GET /admin/v1/orgs/{org_id}/alerts`: the org's budget alerts and their delivery. Apart from
 * `AdminHandlers.ts` because it reads `BudgetAlerts`, which only the server runs (it posts webhooks).
 */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { AdminApi } from "../admin/AdminApi.ts"
import { RequestError } from "../kernel/RequestError.ts"
import { BudgetAlerts } from "../limits/BudgetAlerts.ts"
import { Orgs } from "../orgs/Orgs.ts"
import { apiError } from "./AdminHandlers.ts"

const parseLimit = (value: string | undefined) => {
  if (value === undefined) return Effect.succeed(50)
  const limit = Number(value)
  return /^\d+$/.test(value) && limit >= 1 && limit <= 200
    ? Effect.succeed(limit)
    : Effect.fail(RequestError.invalidField("limit", `Invalid value for 'limit': expected 1 to 200, got '${value}'.`))
}

export const AlertsHandlers = HttpApiBuilder.group(AdminApi, "alerts", (handlers) =>
  Effect.gen(function*() {
    const alerts = yield* BudgetAlerts
    const orgs = yield* Orgs
    return handlers.handle("list", ({ params, query }) =>
      Effect.gen(function*() {
        const limit = yield* parseLimit(query.limit)
        yield* orgs.get(params.org_id)
        return { object: "list" as const, data: yield* alerts.list(params.org_id, limit) }
      }).pipe(Effect.mapError(apiError)))
  }))
