/**
 * Who is calling the admin API, and what they may do. The admin token (bootstrap, automation) is an
 * owner; a person calls with a personal access token and has the roles given to them: `owner`
 * (everything), `admin` of an organization (its keys, shared tools, limits, alerts and compression,
 * and reading its log, analytics and spend) or `viewer` of one (reading them). The checks here are the
 * only ones: every admin handler asks one of them for the organization it touches.
 */
import { Context, Effect } from "effect"
import { AdminError, Forbidden } from "./AdminError.ts"
import type { Role, RoleGrant } from "./Roles.ts"

export type Principal =
  /** The admin token; `via: "cli"` when the CLI works on the local store, trusted with it. */
  | { readonly _tag: "AdminToken"; readonly via?: "cli" | undefined }
  | {
    readonly _tag: "User"
    readonly userId: string
    readonly email: string
    /** The personal access token used; null when the user signed in otherwise. */
    readonly tokenId: string | null
    readonly roles: ReadonlyArray<RoleGrant>
  }

export const ADMIN_TOKEN: Principal = { _tag: "AdminToken" }
export const LOCAL_CLI: Principal = { _tag: "AdminToken", via: "cli" }

/** The caller of the admin request being handled. */
export class CurrentPrincipal extends Context.Service<CurrentPrincipal, Principal>()("svc-gateway/CurrentPrincipal") {}

export const isOwner = (principal: Principal): boolean =>
  principal._tag === "AdminToken" || principal.roles.some((grant) => grant.role === "owner")

const hasRole = (principal: Principal, orgId: string, roles: ReadonlyArray<Role>) =>
  isOwner(principal) ||
  (principal._tag === "User" && principal.roles.some((grant) => grant.org_id === orgId && roles.includes(grant.role)))

/** Whether the principal may read the org's records (viewer, admin or owner). */
export const mayRead = (principal: Principal, orgId: string): boolean => hasRole(principal, orgId, ["admin", "viewer"])

/** Whether the principal may change the org's records (admin or owner). */
export const mayAdminister = (principal: Principal, orgId: string): boolean => hasRole(principal, orgId, ["admin"])

/** The orgs the principal administers (not those she only views); none for the admin token's own. */
export const administeredOrgs = (principal: Principal): ReadonlySet<string> =>
  principal._tag === "User"
    ? new Set(principal.roles.flatMap((grant) => grant.role === "admin" && grant.org_id !== null ? [grant.org_id] : []))
    : new Set()

/** The orgs the principal has a role in; undefined for an owner, who has them all. */
export const orgsOf = (principal: Principal): ReadonlySet<string> | undefined =>
  isOwner(principal) || principal._tag === "AdminToken"
    ? undefined
    : new Set(principal.roles.flatMap((grant) => grant.org_id === null ? [] : [grant.org_id]))

/** A 403 saying what the caller lacks. */
export const forbidden = (message: string) => Effect.fail(new AdminError({ reason: new Forbidden({ message }) }))

const who = (principal: Principal) => principal._tag === "User" ? principal.email : "this caller"

/** Fails with 403 unless the current principal may read `orgId`'s records. */
export const requireRead = (orgId: string) =>
  Effect.flatMap(
    Effect.service(CurrentPrincipal),
    (principal) =>
      mayRead(principal, orgId) ? Effect.void : forbidden(`${who(principal)} has no role in organization '${orgId}'.`)
  )

/** Fails with 403 unless the current principal may change `orgId`'s records. */
export const requireAdmin = (orgId: string) =>
  Effect.flatMap(
    Effect.service(CurrentPrincipal),
    (principal) =>
      mayAdminister(principal, orgId)
        ? Effect.void
        : forbidden(`${who(principal)} is not an admin of organization '${orgId}'; this needs the admin role.`)
  )

/** Fails with 403 unless the current principal is an owner of the gateway. */
export const requireOwner = Effect.flatMap(
  Effect.service(CurrentPrincipal),
  (principal) =>
    isOwner(principal) ? Effect.void : forbidden(`Only an owner may do this; ${who(principal)} is not one.`)
)
