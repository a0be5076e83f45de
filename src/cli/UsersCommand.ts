/**
 * `svc-gateway users ...`: the people who administer the gateway, their roles and their personal
 * access tokens (see the README's "Teams and roles"); and `svc-gateway audit`, the changes made.
 */
import { Console, Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import type { AuditRecord, User } from "../admin/AdminResources.ts"
import type { RoleGrant } from "../kernel/Roles.ts"
import { AdminClient } from "./AdminClient.ts"
import { AdminClientError } from "./AdminClientError.ts"
import { AdminClientFromFlags, json, withAdminClient } from "./Connection.ts"
import { expiresAt, org } from "./Flags.ts"
import { listBody, printJson, table, time } from "./Output.ts"

/** `owner`, `admin:org_...`, `viewer:org_...`, comma-separated; empty: no role. */
export const parseRoles = (text: string): Effect.Effect<ReadonlyArray<RoleGrant>, AdminClientError> =>
  Effect.forEach(text.split(",").map((part) => part.trim()).filter((part) => part !== ""), (part) => {
    if (part === "owner") return Effect.succeed<RoleGrant>({ role: "owner", org_id: null })
    const match = /^(admin|viewer):(\S+)$/.exec(part)
    return match === null
      ? Effect.fail(
        AdminClientError.invalidInput(
          `Invalid role '${part}': expected owner, admin:<org_id> or viewer:<org_id>, comma-separated.`
        )
      )
      : Effect.succeed<RoleGrant>({ role: match[1] as "admin" | "viewer", org_id: match[2]! })
  })

const rolesText = (user: User) =>
  user.roles.length === 0
    ? "none"
    : user.roles.map((grant) => grant.org_id === null ? grant.role : `${grant.role}:${grant.org_id}`).join(", ")

export const formatUsers = (users: ReadonlyArray<User>): string =>
  users.length === 0
    ? "No users yet. Create one with: svc-gateway users create --email <email> --name <name>"
    : table(
      ["ID", "EMAIL", "NAME", "ROLES", "DISABLED"],
      users.map((user) => [user.id, user.email, user.name, rolesText(user), time(user.disabled_at)])
    )

const userId = Argument.String("user_id").pipe(Argument.withDescription("The user's id (user_...)"))

const create = Command.make(
  "create",
  {
    email: Flag.String("email").pipe(Flag.withDescription("The person's email (how single sign-on finds her)")),
    name: Flag.String("name").pipe(Flag.withDescription("The person's name")),
    json
  },
  Effect.fn("cli.users.create")(function*(input) {
    const user = yield* (yield* AdminClient).createUser({ email: input.email, name: input.name })
    yield* input.json ? printJson(user) : Console.log(`Created user ${user.email} (${user.id}); no role yet.`)
  })
).pipe(Command.withDescription("Create a user (owners)"), withAdminClient)

const list = Command.make(
  "list",
  { json },
  Effect.fn("cli.users.list")(function*(input) {
    const users = yield* (yield* AdminClient).listUsers
    yield* input.json ? printJson(listBody(users)) : Console.log(formatUsers(users))
  })
).pipe(Command.withDescription("List users and their roles"), Command.withAlias("ls"), withAdminClient)

const roles = Command.make(
  "roles",
  {
    userId,
    roles: Flag.String("roles").pipe(
      Flag.withDescription("The user's roles: owner, admin:<org_id>, viewer:<org_id>, comma-separated; '' for none"),
      Flag.withMetavar("roles")
    ),
    json
  },
  Effect.fn("cli.users.roles")(function*(input) {
    // refused before the store is opened or the gateway called: it is a mistake in what was typed
    const grants = yield* parseRoles(input.roles)
    const user = yield* AdminClient.use((admin) => admin.setRoles(input.userId, grants)).pipe(
      Effect.provide(AdminClientFromFlags)
    )
    yield* input.json ? printJson(user) : Console.log(`${user.email} now has: ${rolesText(user)}.`)
  })
).pipe(
  Command.withDescription("Set a user's roles (an org admin: only admin and viewer on her own orgs)"),
  Command.withExamples([{ command: "svc-gateway users roles user_123 --roles admin:org_1,viewer:org_2" }])
)

/** `users disable` and `users enable`: the same change either way. */
const setDisabled = (disabled: boolean) =>
  Command.make(
    disabled ? "disable" : "enable",
    { userId, json },
    Effect.fn(disabled ? "cli.users.disable" : "cli.users.enable")(function*(input) {
      const user = yield* (yield* AdminClient).setUserDisabled(input.userId, disabled)
      yield* input.json ? printJson(user) : Console.log(
        disabled
          ? `Disabled ${user.email}: she and her personal tokens are refused until enabled again; her roles stay.`
          : `Enabled ${user.email} again.`
      )
    })
  ).pipe(
    Command.withDescription(
      disabled ? "Disable a user and her personal tokens (owners)" : "Enable a disabled user again (owners)"
    ),
    withAdminClient
  )

const token = Command.make(
  "token",
  {
    userId,
    name: Flag.String("name").pipe(Flag.withDescription("A name to tell the token apart, e.g. laptop")),
    expiresAt,
    json
  },
  Effect.fn("cli.users.token")(function*(input) {
    const made = yield* (yield* AdminClient).createUserToken(input.userId, {
      name: input.name,
      expires_at: Option.getOrNull(input.expiresAt)
    })
    if (input.json) return yield* printJson(made)
    yield* Console.log(
      [
        `Made personal access token '${made.name}' (${made.id}), expiring ${time(made.expires_at, "never")}:`,
        `  ${made.token}`,
        "It is shown this once. Use it as --admin-token (or GATEWAY_ADMIN_TOKEN) with --url, or to sign in to the console."
      ].join("\n")
    )
  })
).pipe(Command.withDescription("Make a personal access token for a user; it is printed once"), withAdminClient)

export const UsersCommand = Command.make("users").pipe(
  Command.withDescription("People who administer the gateway: users, their roles, their personal access tokens"),
  Command.withSubcommands([create, list, roles, setDisabled(true), setDisabled(false), token])
)

export const formatAudit = (records: ReadonlyArray<typeof AuditRecord.Type>): string =>
  records.length === 0
    ? "No changes recorded for these filters."
    : table(
      ["TIME", "ACTOR", "ACTION", "TARGET", "ORG"],
      records.map((record) => [
        time(record.created_at),
        record.actor.email ?? record.actor.kind.replace("_", " "),
        record.action,
        `${record.target.kind} ${record.target.id ?? "-"}`,
        record.org_id ?? "-"
      ])
    )

const optional = (name: string, description: string) =>
  Flag.String(name).pipe(Flag.withDescription(description), Flag.optional)

export const AuditCommand = Command.make(
  "audit",
  {
    org: org.pipe(Flag.withDescription("Only this organization's changes (org_...)"), Flag.optional),
    actor: optional("actor", "A user's id or email, or admin_token, or cli"),
    action: optional("action", "org.update, key.revoke, user.roles, ..."),
    from: optional("from", "ISO 8601, inclusive"),
    to: optional("to", "ISO 8601, exclusive"),
    limit: optional("limit", "1..200, default 50"),
    json
  },
  Effect.fn("cli.audit")(function*(input) {
    const query: Record<string, string> = {}
    for (const name of ["actor", "action", "from", "to", "limit"] as const) {
      const value = input[name]
      if (Option.isSome(value)) query[name] = value.value
    }
    const records = yield* (yield* AdminClient).audit(Option.getOrUndefined(input.org), query)
    yield* input.json ? printJson(listBody(records)) : Console.log(formatAudit(records))
  })
).pipe(
  Command.withDescription("The changes made through the admin API, CLI and console, newest first"),
  withAdminClient
)
