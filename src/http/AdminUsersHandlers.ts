/**
 * The users group of the admin API: people, their roles and their personal access tokens, and `/me`.
 * Who may do what: an owner everything; an org admin lists users (seeing only their roles on her
 * organizations) and gives or takes `admin` and `viewer` on her own organizations, never more; a person
 * makes, lists and revokes her own tokens. Everything else is 403, said plainly.
 */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { AdminApi } from "../admin/AdminApi.ts"
import { parseExpiry } from "../admin/AdminInput.ts"
import { CreateUser, CreateUserToken, SetRoles, UpdateUser } from "../admin/AdminPayloads.ts"
import { decodeInput } from "../kernel/DecodeInput.ts"
import {
  administeredOrgs,
  CurrentPrincipal,
  forbidden,
  isOwner,
  type Principal,
  requireOwner
} from "../kernel/Principal.ts"
import { RequestError } from "../kernel/RequestError.ts"
import type { RoleGrant } from "../kernel/Roles.ts"
import { Orgs } from "../orgs/Orgs.ts"
import { type UserInfo, Users } from "../users/Users.ts"
import { apiError } from "./AdminHandlers.ts"
import { makeAudited } from "./Audited.ts"
import { readJsonBody } from "./JsonBody.ts"

/** A user as the principal may see it: an org admin sees only the roles on her organizations. */
const shown = (principal: Principal, user: UserInfo): UserInfo => {
  if (isOwner(principal) || (principal._tag === "User" && principal.userId === user.id)) return user
  const mine = administeredOrgs(principal)
  return { ...user, roles: user.roles.filter((grant) => grant.org_id !== null && mine.has(grant.org_id)) }
}

/** Only an owner, or an admin of some organization, may look at other users. */
const requireUserAdmin = Effect.flatMap(
  Effect.service(CurrentPrincipal),
  (principal) =>
    isOwner(principal) || administeredOrgs(principal).size > 0
      ? Effect.succeed(principal)
      : forbidden("Only an owner or an organization's admin may look at users.")
)

/** The user herself or an owner: her tokens are hers. */
const requireSelfOrOwner = (userId: string) =>
  Effect.flatMap(
    Effect.service(CurrentPrincipal),
    (principal) =>
      isOwner(principal) || (principal._tag === "User" && principal.userId === userId)
        ? Effect.void
        : forbidden("A person's tokens are hers and an owner's to manage.")
  )

/** A role as asked, checked for its shape: `owner` takes no org, `admin` and `viewer` need one. */
const checkedGrant = (
  grant: { readonly role: RoleGrant["role"]; readonly org_id?: string | null | undefined },
  i: number
) =>
  grant.role === "owner"
    ? grant.org_id === undefined || grant.org_id === null
      ? Effect.succeed<RoleGrant>({ role: "owner", org_id: null })
      : RequestError.invalidField(`roles[${i}].org_id`, "The owner role is over every organization: give no org_id.")
    : typeof grant.org_id === "string" && grant.org_id !== ""
    ? Effect.succeed<RoleGrant>({ role: grant.role, org_id: grant.org_id })
    : RequestError.invalidField(`roles[${i}].org_id`, `The ${grant.role} role needs the organization's org_id.`)

export const UsersHandlers = HttpApiBuilder.group(AdminApi, "users", (handlers) =>
  Effect.gen(function*() {
    const users = yield* Users
    const orgs = yield* Orgs
    const audited = yield* makeAudited
    const userChange = (action: string, userId: string) => ({
      action,
      targetKind: "user",
      targetId: userId,
      orgId: null,
      before: users.get(userId)
    })
    return handlers
      .handleRaw("create", () =>
        Effect.gen(function*() {
          yield* requireOwner
          const input = yield* decodeInput(CreateUser)(yield* readJsonBody)
          return yield* audited(
            { action: "user.create", targetKind: "user", targetId: (user: UserInfo) => user.id, orgId: null },
            users.create(input)
          )
        }).pipe(Effect.mapError(apiError)))
      .handle("list", () =>
        Effect.gen(function*() {
          const principal = yield* requireUserAdmin
          return { object: "list" as const, data: (yield* users.list).map((user) => shown(principal, user)) }
        }).pipe(Effect.mapError(apiError)))
      .handle("get", ({ params }) =>
        Effect.gen(function*() {
          const principal = yield* Effect.service(CurrentPrincipal)
          if (!(principal._tag === "User" && principal.userId === params.user_id)) yield* requireUserAdmin
          return shown(principal, yield* users.get(params.user_id))
        }).pipe(Effect.mapError(apiError)))
      .handleRaw("update", ({ params }) =>
        Effect.gen(function*() {
          yield* requireOwner
          const input = yield* decodeInput(UpdateUser)(yield* readJsonBody)
          return yield* audited(userChange("user.update", params.user_id), users.update(params.user_id, input))
        }).pipe(Effect.mapError(apiError)))
      .handleRaw("setRoles", ({ params }) =>
        Effect.gen(function*() {
          const principal = yield* requireUserAdmin
          const input = yield* decodeInput(SetRoles)(yield* readJsonBody)
          const asked = yield* Effect.forEach(input.roles, checkedGrant)
          for (const grant of asked) if (grant.org_id !== null) yield* orgs.get(grant.org_id)
          const current = yield* users.get(params.user_id)
          const setRoles = (roles: ReadonlyArray<RoleGrant>) =>
            audited(userChange("user.roles", params.user_id), users.setRoles(params.user_id, roles))
          if (isOwner(principal)) return yield* setRoles(asked)
          // an org admin: only admin and viewer, only on her organizations; the user's other roles stay
          const mine = administeredOrgs(principal)
          for (const grant of asked) {
            if (grant.org_id === null || !mine.has(grant.org_id)) {
              return yield* forbidden(
                grant.org_id === null
                  ? "Only an owner may grant the owner role."
                  : `You are not an admin of organization '${grant.org_id}', so you cannot grant roles on it.`
              )
            }
          }
          const kept = current.roles.filter((grant) => grant.org_id === null || !mine.has(grant.org_id))
          return shown(principal, yield* setRoles([...kept, ...asked]))
        }).pipe(Effect.mapError(apiError)))
      .handleRaw("createToken", ({ params }) =>
        Effect.gen(function*() {
          yield* requireSelfOrOwner(params.user_id)
          const input = yield* decodeInput(CreateUserToken)(yield* readJsonBody)
          const expiresAt = yield* parseExpiry(input.expires_at)
          return yield* audited({
            action: "token.create",
            targetKind: "token",
            targetId: (token: { readonly id: string }) => token.id,
            orgId: null
          }, users.createToken(params.user_id, { name: input.name, expiresAt }))
        }).pipe(Effect.mapError(apiError)))
      .handle("listTokens", ({ params }) =>
        Effect.gen(function*() {
          yield* requireSelfOrOwner(params.user_id)
          return { object: "list" as const, data: yield* users.listTokens(params.user_id) }
        }).pipe(Effect.mapError(apiError)))
      .handle("revokeToken", ({ params }) =>
        Effect.gen(function*() {
          yield* requireSelfOrOwner(params.user_id)
          return yield* audited(
            { action: "token.revoke", targetKind: "token", targetId: params.token_id, orgId: null },
            users.revokeToken(params.user_id, params.token_id)
          )
        }).pipe(Effect.mapError(apiError)))
      .handle("me", () =>
        Effect.gen(function*() {
          const principal = yield* Effect.service(CurrentPrincipal)
          if (principal._tag === "AdminToken") return { kind: "admin_token" as const, user: null, token_id: null }
          return { kind: "user" as const, user: yield* users.get(principal.userId), token_id: principal.tokenId }
        }).pipe(Effect.mapError(apiError)))
  }))
