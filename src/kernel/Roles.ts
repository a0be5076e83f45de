/**
 * The roles a person can have (`auth/Principal.ts` says what each allows): `owner` of the whole
 * gateway, `admin` or `viewer` of one organization.
 */
export const ROLES = ["owner", "admin", "viewer"] as const
export type Role = (typeof ROLES)[number]

/** A role as granted: `owner` over the whole gateway (no org), `admin` and `viewer` of one org. */
export interface RoleGrant {
  readonly role: Role
  readonly org_id: string | null
}
