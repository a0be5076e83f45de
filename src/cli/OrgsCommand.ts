/** `svc-gateway orgs ...`: create and list organizations. */
import { Console, Effect } from "effect"
import { Command, Flag } from "effect/cli"
import type { Org } from "../admin/Orgs.ts"
import { AdminClient } from "./AdminClient.ts"
import { json, withAdminClient } from "./Connection.ts"
import { fields, listBody, printJson, table, time } from "./Output.ts"

export const formatOrg = (org: Org): string =>
  [`Created organization '${org.name}'.`, fields([["id", org.id], ["name", org.name], ["created", time(org.created_at)]])]
    .join("\n")

export const formatOrgs = (orgs: ReadonlyArray<Org>): string =>
  orgs.length === 0
    ? "No organizations yet. Create one with: svc-gateway orgs create --name <name>"
    : table(["ID", "NAME", "CREATED"], orgs.map((org) => [org.id, org.name, time(org.created_at)]))

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

export const OrgsCommand = Command.make("orgs").pipe(
  Command.withDescription("Organizations: the owners of API keys"),
  Command.withSubcommands([create, list])
)
