/** `svc-gateway orgs ...`: create and list organizations, and turn storing request text on or off. */
import { Console, Effect } from "effect"
import { Command, Flag } from "effect/cli"
import type { Org } from "../admin/Orgs.ts"
import { AdminClient } from "./AdminClient.ts"
import { json, withAdminClient } from "./Connection.ts"
import { org, trueOrFalse } from "./Flags.ts"
import { fields, listBody, printJson, table, time, yesNo } from "./Output.ts"

export const formatOrg = (org: Org): string =>
  [`Created organization '${org.name}'.`, fields([["id", org.id], ["name", org.name], ["created", time(org.created_at)]])]
    .join("\n")

export const formatOrgs = (orgs: ReadonlyArray<Org>): string =>
  orgs.length === 0
    ? "No organizations yet. Create one with: svc-gateway orgs create --name <name>"
    : table(["ID", "NAME", "CREATED"], orgs.map((org) => [org.id, org.name, time(org.created_at)]))

export const formatLogContent = (org: Org): string =>
  [
    `Updated organization '${org.name}' (${org.id}).`,
    fields([["log content", yesNo(org.log_content)]]),
    org.log_content
      ? "The request log keeps the prompt and completion text of the organization's new requests (see svc-gateway requests get)."
      : "The request log no longer keeps prompt and completion text of the organization's new requests; text already stored stays.",
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
      Flag.withDescription("Whether the request log keeps the prompt and completion text of the organization's requests")
    ),
    json
  },
  Effect.fn("cli.orgs.update")(function*(input) {
    const updated = yield* (yield* AdminClient).setOrgLogContent(input.org, input.logContent)
    yield* input.json ? printJson(updated) : Console.log(formatLogContent(updated))
  })
).pipe(
  Command.withDescription("Turn storing prompt and completion text in the request log on or off for an organization"),
  Command.withExamples([{ command: "svc-gateway orgs update --org org_123 --log-content true" }]),
  withAdminClient
)

export const OrgsCommand = Command.make("orgs").pipe(
  Command.withDescription("Organizations: the owners of API keys and request logs"),
  Command.withSubcommands([create, list, update])
)
