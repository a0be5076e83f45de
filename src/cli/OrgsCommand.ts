/** `svc-gateway orgs ...`: create and list organizations, and change their settings. */
import { Console, Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { COMPRESSION_LEVELS } from "../kernel/CompressionLevel.ts"
import type { Limits } from "../kernel/Limits.ts"
import type { Org } from "../orgs/Orgs.ts"
import { AdminClient } from "./AdminClient.ts"
import { AdminClientError } from "./AdminClientError.ts"
import type { OrgUpdateBody } from "./AdminClientShape.ts"
import { AdminClientFromFlags, json, withAdminClient } from "./Connection.ts"
import { alertsChange, limitFlags, limitsChange, org, parseThresholds, trueOrFalse } from "./Flags.ts"
import { fields, listBody, printJson, table, time, yesNo } from "./Output.ts"

export const formatOrg = (org: Org): string =>
  [
    `Created organization '${org.name}'.`,
    fields([["id", org.id], ["name", org.name], ["created", time(org.created_at)]])
  ]
    .join("\n")

export const formatOrgs = (orgs: ReadonlyArray<Org>): string =>
  orgs.length === 0
    ? "No organizations yet. Create one with: svc-gateway orgs create --name <name>"
    : table(["ID", "NAME", "CREATED"], orgs.map((org) => [org.id, org.name, time(org.created_at)]))

export const NOTHING_TO_CHANGE =
  "Nothing to change: pass --log-content, --compression, --rpm, --tpm, --tokens-per-day, --tokens-per-month, --usd-per-day, --usd-per-month, --alert-webhook or --alert-thresholds."

/** A key's or an org's limits in words: `60 requests/min, 1000000 tokens/day`, or `none`. */
export const formatLimits = (limits: Limits): string => {
  const parts = [
    limits.rpm === null ? undefined : `${limits.rpm} requests/min`,
    limits.tpm === null ? undefined : `${limits.tpm} tokens/min`,
    limits.tokens_per_day === null ? undefined : `${limits.tokens_per_day} tokens/day`,
    limits.tokens_per_month === null ? undefined : `${limits.tokens_per_month} tokens/month`,
    limits.usd_per_day === null ? undefined : `$${limits.usd_per_day}/day`,
    limits.usd_per_month === null ? undefined : `$${limits.usd_per_month}/month`
  ].filter((part) => part !== undefined)
  return parts.length === 0 ? "none" : parts.join(", ")
}

/** An org's alerts in words: `at 50%, 80%, 100% to https://...`, or `none`. */
export const formatAlerts = (alerts: Org["alerts"]): string =>
  alerts === null
    ? "none"
    : `at ${
      alerts.thresholds.map((t) => `${Math.round(t * 1000) / 10}%`).join(", ")
    } of a dollar budget, posted to ${alerts.webhook_url}`

/** What an update changed, and what that means for the org's new requests. */
export const formatOrgUpdate = (org: Org, update: OrgUpdateBody): string =>
  [
    `Updated organization '${org.name}' (${org.id}).`,
    fields([
      ["log content", yesNo(org.log_content)],
      ["compression", org.compression ?? "the gateway's (GATEWAY_COMPRESSION)"],
      ["limits", formatLimits(org.limits)],
      ["budget alerts", formatAlerts(org.alerts)]
    ]),
    ...(update.log_content === undefined ? [] : [
      org.log_content
        ? "The request log keeps the prompt and completion text of the organization's new requests (see svc-gateway requests get)."
        : "The request log no longer keeps prompt and completion text of the organization's new requests; text already stored stays."
    ]),
    "Running gateways apply this within GATEWAY_KEY_CACHE_TTL."
  ].join("\n")

const create = Command.make(
  "create",
  {
    name: Flag.String("name").pipe(Flag.withDescription("The organization's name")),
    json
  },
  Effect.fn("cli.orgs.create")(function*(input) {
    const org = yield* (yield* AdminClient).createOrg(input.name)
    yield* input.json ? printJson(org) : Console.log(formatOrg(org))
  })
).pipe(
  Command.withDescription("Create an organization"),
  Command.withExamples([{ command: "svc-gateway orgs create --name acme" }]),
  withAdminClient
)

const list = Command.make(
  "list",
  { json },
  Effect.fn("cli.orgs.list")(function*(input) {
    const orgs = yield* (yield* AdminClient).listOrgs
    yield* input.json ? printJson(listBody(orgs)) : Console.log(formatOrgs(orgs))
  })
).pipe(Command.withDescription("List the organizations"), Command.withAlias("ls"), withAdminClient)

const update = Command.make(
  "update",
  {
    org,
    logContent: trueOrFalse("log-content").pipe(
      Flag.withDescription(
        "Whether the request log keeps the prompt and completion text of the organization's requests"
      ),
      Flag.optional
    ),
    compression: Flag.ChoiceWithValue("compression", [
      ...COMPRESSION_LEVELS.map((level) => [level, level] as const),
      ["default", null] as const
    ]).pipe(
      Flag.withDescription("How much of what goes upstream is compressed; default: the gateway's GATEWAY_COMPRESSION"),
      Flag.withMetavar("off|shadow|safe|aggressive|default"),
      Flag.optional
    ),
    ...limitFlags,
    alertWebhook: Flag.String("alert-webhook").pipe(
      Flag.withDescription(
        "Where budget alerts are posted when spend crosses a share of a dollar budget (--usd-per-day, --usd-per-month), or none"
      ),
      Flag.withMetavar("url|none"),
      Flag.optional
    ),
    alertThresholds: Flag.String("alert-thresholds").pipe(
      Flag.withDescription("The shares of a dollar budget that post an alert, separated by commas; default 0.5,0.8,1"),
      Flag.withMetavar("shares"),
      Flag.filterMap(parseThresholds, () => "shares above 0 and at most 1, separated by commas (0.5,0.8,1)"),
      Flag.optional
    ),
    json
  },
  Effect.fn("cli.orgs.update")(function*(input) {
    const update: OrgUpdateBody = {
      ...Option.match(input.logContent, { onNone: () => ({}), onSome: (logContent) => ({ log_content: logContent }) }),
      ...Option.match(input.compression, { onNone: () => ({}), onSome: (compression) => ({ compression }) })
    }
    const limits = limitsChange(input)
    if (limits !== undefined) Object.assign(update, { limits })
    const alerts = yield* alertsChange(input)
    if (alerts !== undefined) Object.assign(update, { alerts })
    // refused before the store is opened or the gateway called: it is a mistake in what was typed
    if (Object.keys(update).length === 0) return yield* AdminClientError.invalidInput(NOTHING_TO_CHANGE)
    const updated = yield* AdminClient.use((admin) => admin.updateOrg(input.org, update)).pipe(
      Effect.provide(AdminClientFromFlags)
    )
    yield* input.json ? printJson(updated) : Console.log(formatOrgUpdate(updated, update))
  })
).pipe(
  Command.withDescription(
    "Change an organization's settings: storing prompt and completion text in the request log, compression, and the rate limits and token budgets of all its keys together"
  ),
  Command.withExamples([
    { command: "svc-gateway orgs update --org org_123 --log-content true" },
    { command: "svc-gateway orgs update --org org_123 --compression shadow" },
    { command: "svc-gateway orgs update --org org_123 --rpm 600 --tokens-per-month 50000000" },
    {
      command: "svc-gateway orgs update --org org_123 --usd-per-month 500 --alert-webhook https://hooks.example.com/svc"
    }
  ])
)

export const OrgsCommand = Command.make("orgs").pipe(
  Command.withDescription("Organizations: the owners of API keys and request logs"),
  Command.withSubcommands([create, list, update])
)
