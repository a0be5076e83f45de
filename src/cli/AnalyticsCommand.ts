/**
 * `svc-gateway analytics`: an organization's requests counted per tag, model, key, client session, UTC
 * hour or day, or status (or in total with `--group-by none`), with errors, token sums and latency
 * percentiles, over the same filters as `requests list`.
 */
import { Console, Effect } from "effect"
import { Command, Flag } from "effect/cli"
import type { Analytics, AnalyticsGroup } from "../admin/AdminResources.ts"
import { GROUP_BY, type GroupBy } from "../kernel/GroupBy.ts"
import { AdminClient } from "./AdminClient.ts"
import { json, withAdminClient } from "./Connection.ts"
import { org } from "./Flags.ts"
import { filterFlags, filterInput, ms, noRequests } from "./LogFlags.ts"
import { printJson, table } from "./Output.ts"

/** The first column's header, and what its null group means. */
export const GROUP_COLUMN: Record<GroupBy, readonly [header: string, none: string]> = {
  none: ["GROUP", "all"],
  org: ["ORG", "(no org)"],
  tag: ["TAG", "(untagged)"],
  model: ["MODEL", "(no model)"],
  provider: ["PROVIDER", "(no provider)"],
  key: ["KEY", "(no key)"],
  session: ["SESSION", "(no session)"],
  hour: ["HOUR", "-"],
  day: ["DAY", "-"],
  status: ["STATUS", "-"],
  compression: ["COMPRESSION", "(none)"]
}

export const TAG_NOTE = "A request with several tags counts in the group of each, so the groups add up to more."
export const MORE_GROUPS = "Only the first groups are shown; narrow the filters (--from, --to, ...) to see the others."

export const formatAnalytics = (orgId: string, analytics: Analytics, filtered: boolean): string => {
  if (analytics.data.length === 0) return noRequests(orgId, filtered)
  const [header, none] = GROUP_COLUMN[analytics.group_by]
  const row = (g: AnalyticsGroup) => [
    g.group ?? none,
    String(g.requests),
    String(g.errors),
    String(g.prompt_tokens),
    String(g.completion_tokens),
    String(g.total_tokens),
    ms(g.p50_latency_ms),
    ms(g.p95_latency_ms)
  ]
  return [
    table(
      [header, "REQUESTS", "ERRORS", "PROMPT TOKENS", "COMPLETION TOKENS", "TOTAL TOKENS", "P50 MS", "P95 MS"],
      analytics.data.map(row)
    ),
    ...(analytics.group_by === "tag" ? ["", TAG_NOTE] : []),
    ...(analytics.has_more ? ["", MORE_GROUPS] : [])
  ].join("\n")
}

export const AnalyticsCommand = Command.make(
  "analytics",
  {
    org,
    groupBy: Flag.String("group-by").pipe(
      Flag.withDescription(
        "Count requests per tag, model (the one that answered), provider, key, client session, UTC hour or day, status, or compression level; none: the totals"
      ),
      Flag.withMetavar(GROUP_BY.join("|"))
    ),
    ...filterFlags,
    json
  },
  Effect.fn("cli.analytics")(function*(input) {
    const filter = filterInput(input)
    const analytics = yield* (yield* AdminClient).analytics(input.org, input.groupBy, filter)
    yield* input.json
      ? printJson(analytics)
      : Console.log(formatAnalytics(input.org, analytics, Object.keys(filter).length > 0))
  })
).pipe(
  Command.withDescription(
    "Requests, errors, tokens and p50/p95 latency of an organization, per group, over the filters of requests list"
  ),
  Command.withExamples([
    { command: "svc-gateway analytics --org org_123 --group-by none --from 2026-03-01 --to 2026-04-01" },
    { command: "svc-gateway analytics --org org_123 --group-by tag --status error" },
    { command: "svc-gateway analytics --org org_123 --group-by day --model openai/gpt-4o" },
    { command: "svc-gateway analytics --org org_123 --group-by session --from 2026-03-01" }
  ]),
  withAdminClient
)
