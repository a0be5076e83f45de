/**
 * `svc-gateway tools ...`: the installed shared tools, and per organization which ones are activated and
 * hydrated (injected without being listed) for the whole organization or for chosen keys.
 */
import { Console, Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import type { SvcTool as SvcToolInfo } from "../admin/AdminResources.ts"
import type { OrgToolSetting } from "../tools/Policy.ts"
import { AdminClient } from "./AdminClient.ts"
import { json, withAdminClient } from "./Connection.ts"
import { hydrateKeys, org, trueOrFalse } from "./Flags.ts"
import { fields, idList, listBody, printJson, table, yesNo } from "./Output.ts"

const NO_TOOLS = "No shared tools are installed in this gateway (plugins/index.ts lists them)."

export const formatTools = (tools: ReadonlyArray<SvcToolInfo>): string =>
  tools.length === 0 ? NO_TOOLS : table(["ID", "DESCRIPTION"], tools.map((tool) => [tool.id, tool.description]))

export const formatOrgTools = (settings: ReadonlyArray<OrgToolSetting>): string =>
  settings.length === 0
    ? NO_TOOLS
    : table(
      ["TOOL", "ACTIVATED", "HYDRATE ORG", "HYDRATE KEYS"],
      settings.map((s) => [s.id, yesNo(s.activated), yesNo(s.hydrate_org), idList(s.hydrate_key_ids)])
    )

export const formatOrgTool = (orgId: string, setting: OrgToolSetting): string => {
  const dormant = !setting.activated && (setting.hydrate_org || setting.hydrate_key_ids.length > 0)
  return [
    `Set shared tool ${setting.id} for organization ${orgId}.`,
    fields([
      ["activated", yesNo(setting.activated)],
      ["hydrate org", yesNo(setting.hydrate_org)],
      ["hydrate keys", idList(setting.hydrate_key_ids)]
    ]),
    ...(dormant ? ["Hydration takes effect only while the tool is activated."] : [])
  ].join("\n")
}

const list = Command.make(
  "list",
  { json },
  Effect.fn("cli.tools.list")(function*(input) {
    const tools = yield* (yield* AdminClient).listTools
    yield* input.json ? printJson(listBody(tools)) : Console.log(formatTools(tools))
  })
).pipe(
  Command.withDescription("List the installed shared tools (--json includes their parameters)"),
  Command.withAlias("ls"),
  withAdminClient
)

const orgTools = Command.make(
  "org",
  { org, json },
  Effect.fn("cli.tools.org")(function*(input) {
    const settings = yield* (yield* AdminClient).orgTools(input.org)
    yield* input.json ? printJson(listBody(settings)) : Console.log(formatOrgTools(settings))
  })
).pipe(
  Command.withDescription("Show every installed shared tool's settings in an organization"),
  Command.withExamples([{ command: "svc-gateway tools org --org org_123" }]),
  withAdminClient
)

const set = Command.make(
  "set",
  {
    org,
    tool: Flag.String("tool").pipe(Flag.withDescription("The shared tool's id (svc_...)"), Flag.withMetavar("tool_id")),
    activated: trueOrFalse("activated").pipe(
      Flag.withDescription("Whether the organization's keys may use the tool at all")
    ),
    hydrateOrg: trueOrFalse("hydrate-org").pipe(
      Flag.withDescription(
        "Inject the tool for every key of the organization without them listing it; left out, it stays"
      ),
      Flag.optional
    ),
    hydrateKeys,
    json
  },
  Effect.fn("cli.tools.set")(function*(input) {
    const setting = yield* (yield* AdminClient).setOrgTool(input.org, input.tool, {
      activated: input.activated,
      ...Option.match(input.hydrateOrg, { onNone: () => ({}), onSome: (hydrate_org) => ({ hydrate_org }) }),
      ...Option.match(input.hydrateKeys, { onNone: () => ({}), onSome: (hydrate_key_ids) => ({ hydrate_key_ids }) })
    })
    yield* input.json ? printJson(setting) : Console.log(formatOrgTool(input.org, setting))
  })
).pipe(
  Command.withDescription(
    "Activate or deactivate a shared tool for an organization, and choose whom it is hydrated for"
  ),
  Command.withExamples([
    { command: "svc-gateway tools set --org org_123 --tool svc_current_time --activated true --hydrate-org true" },
    {
      command:
        "svc-gateway tools set --org org_123 --tool svc_generate_uuid --activated true --hydrate-keys key_a,key_b"
    },
    { command: "svc-gateway tools set --org org_123 --tool svc_generate_uuid --activated false --hydrate-keys none" }
  ]),
  withAdminClient
)

export const ToolsCommand = Command.make("tools").pipe(
  Command.withDescription("Shared tools: the installed ones, and which each organization activates and hydrates"),
  Command.withSubcommands([list, orgTools, set])
)
