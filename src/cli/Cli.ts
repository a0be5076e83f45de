/**
 * The `svc-gateway` command tree and how a run ends: every failure is printed as one clear message on
 * stderr and becomes an exit code (0 ok, 1 failed, 2 usage: a bad flag or value). Stacks are only ever
 * printed for defects, which are bugs. To add a command group, build it like `OrgsCommand` and list it
 * in `commands`.
 */
import { Console, Effect } from "effect"
import { type CliError, CliOutput, Command, type HelpDoc } from "effect/cli"
import pkg from "../../package.json" with { type: "json" }
import type { AdminClientError } from "./AdminClientError.ts"
import { AnalyticsCommand } from "./AnalyticsCommand.ts"
import { CLI_NAME, root } from "./Connection.ts"
import { ExitCode } from "./ExitCode.ts"
import { KeysCommand } from "./KeysCommand.ts"
import type { ClientExited } from "./launch/ClientProcess.ts"
import { LaunchCommand } from "./LaunchCommand.ts"
import { McpCommand } from "./McpCommand.ts"
import { OrgsCommand } from "./OrgsCommand.ts"
import { RequestsCommand } from "./RequestsCommand.ts"
import { SpendCommand } from "./SpendCommand.ts"
import { StatuslineCommand } from "./StatuslineCommand.ts"
import { ToolsCommand } from "./ToolsCommand.ts"
import { AuditCommand, UsersCommand } from "./UsersCommand.ts"

/** Every command group, in the order help lists them. */
const commands = [
  OrgsCommand,
  KeysCommand,
  ToolsCommand,
  RequestsCommand,
  AnalyticsCommand,
  SpendCommand,
  UsersCommand,
  McpCommand,
  AuditCommand,
  LaunchCommand,
  StatuslineCommand
] as const

export const cli = root.pipe(Command.withSubcommands(commands))

/** `--org <org_id> [--json]`: required flags as they must be typed, optional ones in brackets. */
const usageLine = (doc: HelpDoc.HelpDoc): string => {
  const flag = (f: HelpDoc.FlagDoc) => {
    const typed = f.type === "boolean" ? `--${f.name}` : `--${f.name} <${f.type}>`
    return f.required ? typed : `[${typed}]`
  }
  const args = (doc.args ?? []).map((a) => (a.required ? `<${a.name}>` : `[<${a.name}>]`))
  const path = (doc.commandPath ?? [CLI_NAME]).join(" ")
  if (doc.subcommands !== undefined && doc.subcommands.length > 0) return `${path} <command> [flags]`
  return [path, ...doc.flags.map(flag), ...args].join(" ")
}

/** Usage mistakes get a short note on stderr (stdout stays clean for `--json`); help stays as effect/cli prints it. */
const presenter: CliOutput.Presenter = {
  present: (event) => {
    if (event._tag !== "InvalidInvocation") return CliOutput.defaultPresenter.present(event)
    const path = event.commandPath.join(" ")
    return Console.error(
      [
        ...event.errors.map((error) => `Error: ${error.message}`),
        `Usage: ${usageLine(event.helpDoc)}`,
        `Run '${path} --help' for details.`
      ].join("\n")
    )
  }
}

const report = (error: CliError.CliError | AdminClientError | ClientExited): Effect.Effect<number> => {
  switch (error._tag) {
    case "ClientExited":
      // the launched client said what went wrong itself
      return Effect.succeed(error.code)
    case "AdminClientError":
      return Console.error(`Error: ${error.message}`).pipe(Effect.as(error.exitCode))
    case "ShowHelp":
      // the presenter already printed it; a bare command group (`svc-gateway orgs`) only shows help
      return Effect.succeed(error.errors.length > 0 ? ExitCode.usage : ExitCode.ok)
    default:
      return Console.error(`Error: ${error.message}`).pipe(Effect.as(ExitCode.usage))
  }
}

/** Runs one command line (without `node` and the script) and returns its exit code. */
export const runCli = (args: ReadonlyArray<string>) =>
  Command.runWith(cli, { version: pkg.version })(args).pipe(
    Effect.as(ExitCode.ok),
    Effect.catch(report),
    Effect.provide(CliOutput.layerPresenter(presenter))
  )
