/** `svc-gateway keys ...`: create (the secret is shown once), list and revoke API keys. */
import { Console, Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import type { ApiKeyInfo, CreatedApiKey } from "../keys/ApiKeys.ts"
import { AdminClient } from "./AdminClient.ts"
import { json, withAdminClient } from "./Connection.ts"
import { fields, listBody, printJson, table, time } from "./Output.ts"

export const SHOWN_ONCE =
  "This secret is shown only this once: store it now. The gateway keeps only its hash, so a lost key " +
  "cannot be recovered, only revoked and replaced."

export const formatCreatedKey = (key: CreatedApiKey): string =>
  [
    `Created API key '${key.name}' in organization ${key.org_id}.`,
    fields([["id", key.id], ["prefix", key.prefix], ["expires", time(key.expires_at, "never")]]),
    "",
    `    ${key.key}`,
    "",
    SHOWN_ONCE
  ].join("\n")

export const formatKeys = (orgId: string, keys: ReadonlyArray<ApiKeyInfo>): string =>
  keys.length === 0
    ? `No API keys in organization ${orgId}. Create one with: svc-gateway keys create --org ${orgId} --name <name>`
    : table(
      ["ID", "NAME", "PREFIX", "CREATED", "LAST USED", "EXPIRES", "REVOKED"],
      keys.map((key) => [
        key.id,
        key.name,
        key.prefix,
        time(key.created_at),
        time(key.last_used_at, "never"),
        time(key.expires_at, "never"),
        time(key.revoked_at)
      ])
    )

export const formatRevoked = (key: ApiKeyInfo): string =>
  `Revoked API key '${key.name}' (${key.id}) of organization ${key.org_id} at ${time(key.revoked_at)}. ` +
  `Requests with it are refused from now on.`

const org = Flag.String("org").pipe(Flag.withDescription("The organization's id (org_...)"), Flag.withMetavar("org_id"))

const create = Command.make(
  "create",
  {
    org,
    name: Flag.String("name").pipe(Flag.withDescription("A name to tell the key apart, e.g. ci or laptop")),
    expiresAt: Flag.String("expires-at").pipe(
      Flag.withDescription("When the key stops working: an ISO 8601 date-time such as 2030-01-31T00:00:00Z"),
      Flag.withMetavar("date_time"),
      Flag.optional
    ),
    json
  },
  Effect.fn("cli.keys.create")(function*(input) {
    const key = yield* (yield* AdminClient).createKey(input.org, {
      name: input.name,
      expiresAt: Option.getOrNull(input.expiresAt)
    })
    if (!input.json) return yield* Console.log(formatCreatedKey(key))
    yield* printJson(key)
    yield* Console.error(`The "key" field is the secret. ${SHOWN_ONCE}`)
  })
).pipe(
  Command.withDescription("Create an API key; its secret is printed once"),
  Command.withExamples([
    { command: "svc-gateway keys create --org org_123 --name ci" },
    { command: "svc-gateway keys create --org org_123 --name trial --expires-at 2030-01-31T00:00:00Z" }
  ]),
  withAdminClient
)

const list = Command.make(
  "list",
  { org, json },
  Effect.fn("cli.keys.list")(function*(input) {
    const keys = yield* (yield* AdminClient).listKeys(input.org)
    yield* input.json ? printJson(listBody(keys)) : Console.log(formatKeys(input.org, keys))
  })
).pipe(Command.withDescription("List an organization's API keys (never their secrets)"), Command.withAlias("ls"), withAdminClient)

const revoke = Command.make(
  "revoke",
  {
    keyId: Argument.String("key_id").pipe(Argument.withDescription("The key's id (key_...)")),
    json
  },
  Effect.fn("cli.keys.revoke")(function*(input) {
    const key = yield* (yield* AdminClient).revokeKey(input.keyId)
    yield* input.json ? printJson(key) : Console.log(formatRevoked(key))
  })
).pipe(Command.withDescription("Revoke an API key at once; revoking twice keeps the first time"), withAdminClient)

export const KeysCommand = Command.make("keys").pipe(
  Command.withDescription("API keys of organizations"),
  Command.withSubcommands([create, list, revoke])
)
