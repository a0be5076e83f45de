/**
 * `svc-gateway mcp ...`: an organization's remote MCP servers, whose tools become its shared tools
 * (see the README's "Shared tools over MCP"). The gateway is what reaches a server, so these go
 * through a running gateway (`--url`); on the local store they say so.
 */
import { Console, Effect } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import type { McpServer } from "../admin/AdminResources.ts"
import { AdminClient } from "./AdminClient.ts"
import { AdminClientError } from "./AdminClientError.ts"
import { AdminClientFromFlags, json, withAdminClient } from "./Connection.ts"
import { org } from "./Flags.ts"
import { listBody, printJson, table, time } from "./Output.ts"

/** `Name: value` headers as given, repeatable; a value may hold colons. */
export const parseHeaders = (
  given: ReadonlyArray<string>
): Effect.Effect<Readonly<Record<string, string>>, AdminClientError> =>
  Effect.gen(function*() {
    const headers: Record<string, string> = {}
    for (const header of given) {
      const colon = header.indexOf(":")
      const name = colon < 1 ? "" : header.slice(0, colon).trim()
      if (name === "" || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
        return yield* AdminClientError.invalidInput(`Invalid --header '${header}': expected 'Name: value'.`)
      }
      headers[name] = header.slice(colon + 1).trim()
    }
    return headers
  })

export const formatMcpServers = (servers: ReadonlyArray<McpServer>): string =>
  servers.length === 0
    ? "No MCP servers yet. Add one with: svc-gateway mcp add --org <org_id> --name <name> --server-url <url>"
    : table(
      ["ID", "NAME", "URL", "TOOLS", "LEFT OUT", "LAST ERROR", "ASKED"],
      servers.map((server) => [
        server.id,
        server.name,
        server.url,
        String(server.tools.length),
        String(server.rejected_tools.length),
        server.last_error ?? "-",
        time(server.refreshed_at)
      ])
    )

/** What one server offers, for the person who just added or refreshed it. */
const described = (server: McpServer): string =>
  [
    `${server.name} (${server.id}) at ${server.url}`,
    server.last_error === null ? null : `  could not be asked: ${server.last_error}`,
    ...server.tools.map((tool) => `  ${tool.id}  ${tool.description}`),
    ...server.rejected_tools.map((tool) => `  left out: ${tool.name}: ${tool.reason}`),
    server.tools.length === 0
      ? null
      : `Activate a tool with: svc-gateway tools set --org ${server.org_id} --tool <tool_id> --activated true`
  ].filter((line) => line !== null).join("\n")

const serverId = Argument.String("server_id").pipe(Argument.withDescription("The server's id (mcp_...)"))

const add = Command.make(
  "add",
  {
    org,
    name: Flag.String("name").pipe(
      Flag.withDescription("1 to 24 lower-case letters and digits; tools are svc_mcp_<name>_<tool>")
    ),
    serverUrl: Flag.String("server-url").pipe(Flag.withDescription("The server's streamable HTTP endpoint")),
    header: Flag.String("header").pipe(
      Flag.withDescription("A header sent to the server, 'Name: value' (repeatable); stored sealed, never shown"),
      Flag.atLeast(0)
    ),
    oauth: Flag.Boolean("oauth").pipe(
      Flag.withDescription("Authorized with OAuth instead of headers: an org admin then authorizes it in the console"),
      Flag.withDefault(false)
    ),
    json
  },
  Effect.fn("cli.mcp.add")(function*(input) {
    // refused before the gateway is called: it is a mistake in what was typed
    const headers = yield* parseHeaders(input.header)
    const server = yield* AdminClient.use((admin) =>
      admin.addMcpServer(input.org, { name: input.name, url: input.serverUrl, headers, oauth: input.oauth })
    ).pipe(Effect.provide(AdminClientFromFlags))
    yield* input.json ? printJson(server) : Console.log(`Added ${described(server)}`)
  })
).pipe(
  Command.withDescription("Register a remote MCP server for an organization"),
  Command.withExamples([{
    command:
      "svc-gateway --url http://127.0.0.1:8080 mcp add --org org_1 --name docs --server-url https://mcp.example.com/mcp --header 'Authorization: Bearer ...'"
  }])
)

const list = Command.make(
  "list",
  { org, json },
  Effect.fn("cli.mcp.list")(function*(input) {
    const servers = yield* (yield* AdminClient).listMcpServers(input.org)
    yield* input.json ? printJson(listBody(servers)) : Console.log(formatMcpServers(servers))
  })
).pipe(Command.withDescription("List an organization's MCP servers"), Command.withAlias("ls"), withAdminClient)

const refresh = Command.make(
  "refresh",
  { org, serverId, json },
  Effect.fn("cli.mcp.refresh")(function*(input) {
    const server = yield* (yield* AdminClient).refreshMcpServer(input.org, input.serverId)
    yield* input.json ? printJson(server) : Console.log(described(server))
  })
).pipe(Command.withDescription("Ask an MCP server for its tools again"), withAdminClient)

const remove = Command.make(
  "remove",
  { org, serverId, json },
  Effect.fn("cli.mcp.remove")(function*(input) {
    const server = yield* (yield* AdminClient).removeMcpServer(input.org, input.serverId)
    yield* input.json ? printJson(server) : Console.log(`Removed ${server.name} and its tools.`)
  })
).pipe(Command.withDescription("Remove an MCP server and its tools"), Command.withAlias("rm"), withAdminClient)

export const McpCommand = Command.make("mcp").pipe(
  Command.withDescription("An organization's remote MCP servers, whose tools become its shared tools"),
  Command.withSubcommands([add, list, refresh, remove])
)
