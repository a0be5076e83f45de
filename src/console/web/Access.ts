/**
 * What the signed-in caller may do, read from `GET /admin/v1/me`'s roles, so that the console does not
 * offer what her role may not do: an owner (and the admin token) everything, an org's admin its keys,
 * shared tools, settings and audit log, a viewer reading. A courtesy only: the admin API checks every
 * call itself, and its 403 shows on the page like every other refusal.
 */
import { createContext } from "preact"
import { useContext } from "preact/hooks"
import type { Me, Org, User } from "./Api.ts"

export interface Access {
  /** Null when `/me` could not be read: then everything is offered and the API refuses what it must. */
  readonly me: Me | null
  /** An owner of the gateway: organizations, circuit breakers, every org. */
  readonly owner: boolean
  /** Whether she may change the org's keys, shared tools and settings, and read its audit log. */
  readonly administers: (orgId: string) => boolean
  /** An owner or an admin of some organization: she may look at people and give roles (on her orgs). */
  readonly administersSome: boolean
}

export const accessOf = (me: Me | null): Access => {
  const roles = me?.kind === "user" ? me.user?.roles ?? [] : []
  const owner = me === null || me.kind === "admin_token" || roles.some((grant) => grant.role === "owner")
  return {
    me,
    owner,
    administers: (orgId) => owner || roles.some((grant) => grant.role === "admin" && grant.org_id === orgId),
    administersSome: owner || roles.some((grant) => grant.role === "admin")
  }
}

export const AccessContext = createContext<Access>(accessOf(null))

/** The signed-in caller's access, given by the console's frame. */
export const useAccess = (): Access => useContext(AccessContext)

/** `owner`, or `admin of Team A, viewer of Team B` (an org's name where the console knows it). */
export const rolesText = (me: Me, orgs: ReadonlyArray<Org>): string =>
  me.kind === "admin_token" ? "owner" : grantsText(me.user?.roles ?? [], orgs)

/** A person's roles as `rolesText` words them. */
export const grantsText = (roles: User["roles"], orgs: ReadonlyArray<Org>): string => {
  if (roles.some((grant) => grant.role === "owner")) return "owner"
  const nameOf = (orgId: string | null) => orgs.find((org) => org.id === orgId)?.name ?? orgId ?? ""
  const of = (role: "admin" | "viewer") => {
    const names = roles.filter((grant) => grant.role === role).map((grant) => nameOf(grant.org_id))
    return names.length === 0 ? [] : [`${role} of ${names.join(", ")}`]
  }
  const parts = [...of("admin"), ...of("viewer")]
  return parts.length === 0 ? "no role yet" : parts.join("; ")
}
