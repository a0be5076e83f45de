/**
 * `svc-gateway spend`: what an organization's requests (or every organization's) cost, in dollars, per
 * UTC day (the default), org, key, model, provider, tag, client session, status or level, or in total, over the filters of `requests list`: the admin
 * API's analytics, read for their money. Requests of models without a known price are counted apart,
 * never as free.
 */
import { Console, Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import type { Analytics, AnalyticsGroup } from "../admin/AdminResources.ts"
import { GROUP_BY } from "../kernel/GroupBy.ts"
import { AdminClient } from "./AdminClient.ts"
import { GROUP_COLUMN, MORE_GROUPS, TAG_NOTE } from "./AnalyticsCommand.ts"
import { json, withAdminClient } from "./Connection.ts"
import { org } from "./Flags.ts"
import { filterFlags, filterInput, noRequests } from "./LogFlags.ts"
import { printJson, table } from "./Output.ts"

/** Dollars to the cent, or to the micro-dollar below a cent, so a small spend does not read as nothing. */
export const money = (usd: number): string => usd === 0 || usd >= 0.01 ? `$${usd.toFixed(2)}` : `$${usd.toFixed(6)}`

export const unpricedNote = (count: number): string =>
  `${count} answered request${count === 1 ? "" : "s"} of models without a known price ` +
  `${count === 1 ? "is" : "are"} not in these sums (GET /admin/v1/prices lists the prices).`

/** `orgId` undefined: every organization's. */
export const formatSpend = (orgId: string | undefined, analytics: Analytics, filtered: boolean): string => {
  if (analytics.data.length === 0) {
    if (orgId !== undefined) return noRequests(orgId, filtered)
    return filtered ? "No requests of any organization match these filters." : "No requests logged yet."
  }
  const [header, none] = GROUP_COLUMN[analytics.group_by]
  const row = (g: AnalyticsGroup) => [
    g.group ?? none,
    money(g.cost_usd),
    String(g.requests),
    String(g.unpriced_requests),
    String(g.total_tokens)
  ]
  const unpriced = analytics.data.reduce((sum, g) => sum + g.unpriced_requests, 0)
  const total = analytics.data.reduce((sum, g) => sum + Math.round(g.cost_usd * 1_000_000), 0) / 1_000_000
  return [
    table([header, "COST", "REQUESTS", "UNPRICED", "TOKENS"], analytics.data.map(row)),
    ...(analytics.group_by === "none" || analytics.group_by === "tag" ? [] : ["", `Total: ${money(total)}`]),
    ...(unpriced === 0 ? [] : ["", unpricedNote(unpriced)]),
    ...(analytics.group_by === "tag" ? ["", TAG_NOTE] : []),
    ...(analytics.has_more ? ["", MORE_GROUPS] : [])
  ].join("\n")
}

export const SpendCommand = Command.make(
  "spend",
  {
    org: org.pipe(
      Flag.withDescription(
        "The organization's id (org_...); left out, every organization's (with --group-by org: each)"
      ),
      Flag.optional
    ),
    groupBy: Flag.String("group-by").pipe(
      Flag.withDescription(
        "Sum the cost per UTC day (default), hour, org, key, model, provider, tag, client session, status or compression level; none: the total"
      ),
      Flag.withMetavar(GROUP_BY.join("|")),
      Flag.withDefault("day")
    ),
    ...filterFlags,
    json
  },
  Effect.fn("cli.spend")(function*(input) {
    const filter = filterInput(input)
    const orgId = Option.getOrUndefined(input.org)
    const analytics = yield* (yield* AdminClient).analytics(orgId, input.groupBy, filter)
    yield* input.json
      ? printJson(analytics)
      : Console.log(formatSpend(orgId, analytics, Object.keys(filter).length > 0))
  })
).pipe(
  Command.withDescription(
    "What an organization's requests (or every organization's) cost in dollars, per day or group, over the filters of requests list"
  ),
  Command.withExamples([
    { command: "svc-gateway spend --org org_123 --from 2026-03-01 --to 2026-04-01" },
    { command: "svc-gateway spend --org org_123 --group-by model" },
    { command: "svc-gateway spend --org org_123 --group-by key --tag team:search" },
    { command: "svc-gateway spend --group-by org --from 2026-03-01" }
  ]),
  withAdminClient
)
