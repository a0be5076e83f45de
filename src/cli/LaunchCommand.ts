/**
 * `svc-gateway launch claude|codex|opencode [--url U] [--model M] [--key K] [-- client args]`: runs a
 * coding client pointed at the gateway for this run only (`launch/LaunchClients.ts` says how, per
 * client; the user's own configuration is never touched). The key is `--key`, else `SVC_GATEWAY_KEY`,
 * else one the launcher makes through the admin API when it has the admin token. Every request is
 * tagged `developer:<email>` (git's `user.email` unless `--developer` says otherwise), so the
 * gateway's sessions show whose they are.
 */
import { Console, Effect, Layer, Option, Redacted } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { FetchHttpClient } from "effect/http"
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { AdminClient } from "./AdminClient.ts"
import { AdminClientError } from "./AdminClientError.ts"
import { gatewayUrl, root } from "./Connection.ts"
import { gatewayKey, org } from "./Flags.ts"
import { runClient } from "./launch/ClientProcess.ts"
import { clientRun, INSTALL_HINTS, LAUNCH_CLIENTS, type LaunchClient } from "./launch/LaunchClients.ts"

/** How long a key the launcher makes stays valid. */
const MADE_KEY_DAYS = 30

/** A developer tag's value: what a tag may hold after `developer:` (`core/Tags.ts`). */
const DEVELOPER = /^[A-Za-z0-9\-_.:/=@+]{1,54}$/

const BIN = fileURLToPath(new URL("../../bin/svc-gateway.mjs", import.meta.url))

const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`

/** The command Claude Code runs for its status line: this CLI, by absolute paths, so PATH does not matter. */
export const statuslineCommand = (): string => `${shellQuote(process.execPath)} ${shellQuote(BIN)} statusline`

const gitEmail = (): string | undefined => {
  const git = spawnSync("git", ["config", "user.email"], { encoding: "utf8", timeout: 2_000 })
  const email = git.status === 0 ? git.stdout.trim() : ""
  return email === "" ? undefined : email
}

/** `--developer`, else git's `user.email` (left out, with a note, when it cannot be a tag). */
const developerOf = (given: Option.Option<string>) =>
  Effect.gen(function*() {
    if (Option.isSome(given)) {
      if (DEVELOPER.test(given.value)) return given.value
      return yield* AdminClientError.invalidInput(
        `Invalid --developer '${given.value}': 1 to 54 letters, digits and - _ . : / = @ + (an email fits).`
      )
    }
    const email = gitEmail()
    if (email === undefined || DEVELOPER.test(email)) return email
    yield* Console.error(`svc-gateway: git's user.email '${email}' cannot be a tag; requests go untagged.`)
    return undefined
  })

/** A key made for this developer through the admin API: in `--org`, else in the only organization. */
const makeKey = (options: {
  readonly client: LaunchClient
  readonly developer: string | undefined
  readonly org: Option.Option<string>
}) =>
  Effect.gen(function*() {
    const admin = yield* AdminClient
    let orgId = Option.getOrUndefined(options.org)
    if (orgId === undefined) {
      const orgs = yield* admin.listOrgs
      if (orgs.length !== 1) {
        return yield* AdminClientError.invalidInput(
          orgs.length === 0
            ? "The gateway has no organization to make a key in: create one (svc-gateway orgs create <name>)."
            : `The gateway has ${orgs.length} organizations: say which one the key is for with --org ` +
              `(${orgs.slice(0, 5).map((o) => o.id).join(", ")}${orgs.length > 5 ? ", ..." : ""}).`
        )
      }
      orgId = orgs[0]!.id
    }
    const expires = new Date(Date.now() + MADE_KEY_DAYS * 86_400_000)
    const made = yield* admin.createKey(orgId, {
      name: `${options.client} via svc-gateway launch${
        options.developer === undefined ? "" : ` (${options.developer})`
      }`,
      description: "Made by svc-gateway launch",
      expires_at: expires.toISOString()
    })
    yield* Console.error(
      `svc-gateway: made key ${made.id} in ${orgId}, valid until ${expires.toISOString().slice(0, 10)}; ` +
        `to use it again: export SVC_GATEWAY_KEY=${made.key}`
    )
    return made.key
  })

/** The key to launch with: given, or made when the admin token is at hand. */
const keyFor = (options: {
  readonly key: Option.Option<Redacted.Redacted<string>>
  readonly url: string
  readonly adminToken: Option.Option<Redacted.Redacted<string>>
  readonly client: LaunchClient
  readonly developer: string | undefined
  readonly org: Option.Option<string>
}) => {
  if (Option.isSome(options.key)) return Effect.succeed(Redacted.value(options.key.value))
  if (Option.isNone(options.adminToken)) {
    return Effect.fail(AdminClientError.invalidInput(
      "No gateway key: pass --key <key> or set SVC_GATEWAY_KEY, or give the admin token (GATEWAY_ADMIN_TOKEN) " +
        "so the launcher can make one."
    ))
  }
  return makeKey(options).pipe(
    Effect.provide(
      AdminClient.layerHttp({ url: options.url, adminToken: options.adminToken.value }).pipe(
        Layer.provide(FetchHttpClient.layer)
      )
    )
  )
}

export const LaunchCommand = Command.make(
  "launch",
  {
    client: Argument.Literals("client", LAUNCH_CLIENTS).pipe(
      Argument.withDescription("The coding client to run: claude (Claude Code), codex (Codex) or opencode (OpenCode)")
    ),
    model: Flag.String("model").pipe(
      Flag.withDescription("The model to use, as the gateway routes it (provider/model); else the client's own"),
      Flag.withMetavar("model"),
      Flag.optional
    ),
    key: gatewayKey("The gateway API key; else one is made with the admin token"),
    org: org.pipe(Flag.withDescription("The organization a made key belongs to (org_...)"), Flag.optional),
    developer: Flag.String("developer").pipe(
      Flag.withDescription("Who the session is, tagged developer:<this> on each request; else git's user.email"),
      Flag.withMetavar("email"),
      Flag.optional
    ),
    args: Argument.String("client_args").pipe(
      Argument.withDescription("Passed to the client as they are; put them after --"),
      Argument.variadic()
    )
  },
  Effect.fn("cli.launch")(function*(input) {
    const flags = yield* root
    const url = yield* gatewayUrl(flags.url)
    const developer = yield* developerOf(input.developer)
    const key = yield* keyFor({ ...input, url, developer, adminToken: flags.adminToken })
    const run = clientRun(input.client, {
      url,
      key,
      model: Option.getOrUndefined(input.model),
      developer,
      statusline: statuslineCommand(),
      args: input.args
    })
    yield* runClient(run, INSTALL_HINTS[input.client])
  })
).pipe(
  Command.withDescription(
    "Run Claude Code, Codex or OpenCode through the gateway, configured for this run only (your own config untouched)"
  )
)
