/** `svc-gateway keys ...`: create (the secret is shown once), list, update and revoke API keys. */
import { Console, Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import type { UpdateKey } from "../admin/AdminPayloads.ts"
import type { ApiKey as ApiKeyInfo, CreatedApiKey } from "../admin/AdminResources.ts"
import { AdminClient } from "./AdminClient.ts"
import { AdminClientError } from "./AdminClientError.ts"
import { AdminClientFromFlags, json, withAdminClient } from "./Connection.ts"
import { allowedTools, expiresAt, limitFlags, limitsChange, org } from "./Flags.ts"
import { formatLimits } from "./OrgsCommand.ts"
import { fields, idList, listBody, printJson, table, time } from "./Output.ts"

export const SHOWN_ONCE =
  "This secret is shown only this once: store it now. The gateway keeps only its hash, so a lost key " +
  "cannot be recovered, only revoked and replaced."

/** A key's `allowed_svc_tool_ids` in words: `all` (null: every activated tool), `none`, or the ids. */
export const allowedToolsText = (ids: ReadonlyArray<string> | null): string =>
  ids === null ? "all" : idList(ids, "none")

/** `--description <text>`: what the key is for; empty text removes it. */
const description = Flag.String("description").pipe(
  Flag.withDescription("What the key is for, in your words (empty: none)"),
  Flag.withMetavar("text"),
  Flag.map((text): string | null => (text === "" ? null : text)),
  Flag.optional
)

export const formatCreatedKey = (key: CreatedApiKey): string =>
  [
    `Created API key '${key.name}' in organization ${key.org_id}.`,
    fields([
      ["id", key.id],
      ["description", key.description ?? "-"],
      ["prefix", key.prefix],
      ["expires", time(key.expires_at, "never")],
      ["allowed tools", allowedToolsText(key.allowed_svc_tool_ids)]
    ]),
    "",
    `    ${key.key}`,
    "",
    SHOWN_ONCE
  ].join("\n")

export const formatKeys = (orgId: string, keys: ReadonlyArray<ApiKeyInfo>): string =>
  keys.length === 0
    ? `No API keys in organization ${orgId}. Create one with: svc-gateway keys create --org ${orgId} --name <name>`
    : table(
      ["ID", "NAME", "PREFIX", "CREATED", "LAST USED", "EXPIRES", "REVOKED", "ALLOWED TOOLS", "DESCRIPTION"],
      keys.map((key) => [
        key.id,
        key.name,
        key.prefix,
        time(key.created_at),
        time(key.last_used_at, "never"),
        time(key.expires_at, "never"),
        time(key.revoked_at),
        allowedToolsText(key.allowed_svc_tool_ids),
        key.description ?? "-"
      ])
    )

export const formatUpdated = (key: ApiKeyInfo): string =>
  [
    `Updated API key '${key.name}' (${key.id}) of organization ${key.org_id}.`,
    fields([
      ["name", key.name],
      ["description", key.description ?? "-"],
      ["expires", time(key.expires_at, "never")],
      ["allowed tools", allowedToolsText(key.allowed_svc_tool_ids)],
      ["limits", formatLimits(key.limits)],
      ...(key.revoked_at === null ? [] : [["revoked", time(key.revoked_at)] as const])
    ])
  ].join("\n")

export const formatRevoked = (key: ApiKeyInfo): string =>
  `Revoked API key '${key.name}' (${key.id}) of organization ${key.org_id} at ${time(key.revoked_at)}. ` +
  `Requests with it are refused from now on (by a running gateway that shares this store directly, within GATEWAY_KEY_CACHE_TTL).`

export const NOTHING_TO_UPDATE =
  "Nothing to update: pass --name, --description, --expires-at, --allowed-tools, --rpm, --tpm, --tokens-per-day or --tokens-per-month."

const keyId = Argument.String("key_id").pipe(Argument.withDescription("The key's id (key_...)"))

const create = Command.make(
  "create",
  {
    org,
    name: Flag.String("name").pipe(Flag.withDescription("A name to tell the key apart, e.g. ci or laptop")),
    description,
    expiresAt,
    allowedTools,
    ...limitFlags,
    json
  },
  Effect.fn("cli.keys.create")(function*(input) {
    const limits = limitsChange(input)
    const key = yield* (yield* AdminClient).createKey(input.org, {
      name: input.name,
      ...Option.match(input.description, { onNone: () => ({}), onSome: (text) => ({ description: text }) }),
      expires_at: Option.getOrNull(input.expiresAt),
      ...Option.match(input.allowedTools, { onNone: () => ({}), onSome: (ids) => ({ allowed_svc_tool_ids: ids }) }),
      ...(limits === undefined ? {} : { limits })
    })
    if (!input.json) return yield* Console.log(formatCreatedKey(key))
    yield* printJson(key)
    yield* Console.error(`The "key" field is the secret. ${SHOWN_ONCE}`)
  })
).pipe(
  Command.withDescription("Create an API key; its secret is printed once"),
  Command.withExamples([
    { command: "svc-gateway keys create --org org_123 --name ci" },
    { command: "svc-gateway keys create --org org_123 --name trial --expires-at 2030-01-31T00:00:00Z" },
    { command: "svc-gateway keys create --org org_123 --name bot --allowed-tools svc_current_time" },
    { command: "svc-gateway keys create --org org_123 --name batch --rpm 60 --tokens-per-day 1000000" }
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
).pipe(
  Command.withDescription("List an organization's API keys (never their secrets)"),
  Command.withAlias("ls"),
  withAdminClient
)

const update = Command.make(
  "update",
  {
    keyId,
    name: Flag.String("name").pipe(Flag.withDescription("The key's new name"), Flag.optional),
    description,
    expiresAt,
    allowedTools,
    ...limitFlags,
    json
  },
  Effect.fn("cli.keys.update")(function*(input) {
    const limits = limitsChange(input)
    const changes: UpdateKey = {
      ...Option.match(input.name, { onNone: () => ({}), onSome: (name) => ({ name }) }),
      ...Option.match(input.description, { onNone: () => ({}), onSome: (text) => ({ description: text }) }),
      ...Option.match(input.expiresAt, { onNone: () => ({}), onSome: (expires_at) => ({ expires_at }) }),
      ...Option.match(input.allowedTools, { onNone: () => ({}), onSome: (ids) => ({ allowed_svc_tool_ids: ids }) }),
      ...(limits === undefined ? {} : { limits })
    }
    // refused before the store is opened or the gateway called: it is a mistake in what was typed
    if (Object.keys(changes).length === 0) return yield* AdminClientError.invalidInput(NOTHING_TO_UPDATE)
    const key = yield* AdminClient.use((admin) => admin.updateKey(input.keyId, changes)).pipe(
      Effect.provide(AdminClientFromFlags)
    )
    yield* input.json ? printJson(key) : Console.log(formatUpdated(key))
  })
).pipe(
  Command.withDescription(
    "Change an API key's name, description, expiry, allowed shared tools, rate limits or token budgets; the rest stays as it is"
  ),
  Command.withExamples([
    { command: "svc-gateway keys update key_123 --allowed-tools svc_current_time,svc_generate_uuid" },
    { command: "svc-gateway keys update key_123 --allowed-tools all --expires-at never" },
    { command: "svc-gateway keys update key_123 --rpm 60 --tpm 100000 --tokens-per-day none" }
  ])
)

const revoke = Command.make(
  "revoke",
  { keyId, json },
  Effect.fn("cli.keys.revoke")(function*(input) {
    const key = yield* (yield* AdminClient).revokeKey(input.keyId)
    yield* input.json ? printJson(key) : Console.log(formatRevoked(key))
  })
).pipe(Command.withDescription("Revoke an API key at once; revoking twice keeps the first time"), withAdminClient)

export const KeysCommand = Command.make("keys").pipe(
  Command.withDescription("API keys of organizations"),
  Command.withSubcommands([create, list, update, revoke])
)
