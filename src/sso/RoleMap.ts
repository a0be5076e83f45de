/**
 * Roles from the identity provider: `GATEWAY_OIDC_ROLE_MAP` maps the values of one claim (usually the
 * person's groups, named by `GATEWAY_OIDC_ROLES_CLAIM`) to roles, as `group=role[:org_id]` entries
 * separated by commas: `gw-owners=owner, team-a=admin:org_1, team-a-read=viewer:org_1`. A group may
 * be named in several entries. With a map, a person's roles are the map's on every sign-in; without
 * one, an owner gives them.
 */
import { type RoleGrant, ROLES } from "../kernel/Roles.ts"

export type RoleMap = ReadonlyMap<string, ReadonlyArray<RoleGrant>>

/** The map, or the first entry it cannot read and why. */
export const parseRoleMap = (text: string): RoleMap | { readonly error: string } => {
  const map = new Map<string, Array<RoleGrant>>()
  for (const raw of text.split(",")) {
    const entry = raw.trim()
    if (entry === "") continue
    const equals = entry.lastIndexOf("=")
    const group = entry.slice(0, equals).trim()
    const [role, orgId, ...rest] = entry.slice(equals + 1).trim().split(":")
    const grant = equals <= 0 || rest.length > 0 ? undefined : grantOf(role!, orgId)
    if (group === "" || grant === undefined) {
      return {
        error: `'${entry}' is not 'group=owner', 'group=admin:<org_id>' or 'group=viewer:<org_id>'`
      }
    }
    map.set(group, [...(map.get(group) ?? []), grant])
  }
  return map
}

const grantOf = (role: string, orgId: string | undefined): RoleGrant | undefined => {
  if (!(ROLES as ReadonlyArray<string>).includes(role)) return undefined
  if (role === "owner") return orgId === undefined ? { role: "owner", org_id: null } : undefined
  return orgId === undefined || orgId.trim() === ""
    ? undefined
    : { role: role as RoleGrant["role"], org_id: orgId.trim() }
}

/**
 * The roles a claim's value gives: a list of groups (or one group as a string) looked up in the map.
 * Anything else (absent, a number) gives none.
 */
export const rolesFromClaim = (map: RoleMap, claim: unknown): ReadonlyArray<RoleGrant> => {
  const groups = typeof claim === "string" ? [claim] : Array.isArray(claim) ? claim : []
  const grants = new Map<string, RoleGrant>()
  for (const group of groups) {
    if (typeof group !== "string") continue
    for (const grant of map.get(group) ?? []) grants.set(`${grant.role}\u0000${grant.org_id ?? ""}`, grant)
  }
  return [...grants.values()]
}
