/**
 * Who a single sign-on signs in: the user whose email the provider vouches for (`email_verified`,
 * unless the operator turned that check off). With a role map, the person's roles are the map's for her
 * groups on every sign-in, and a person the map gives a role is added on her first sign-in; without
 * one, an owner adds people and gives roles, and an unknown email is refused. A disabled user is
 * refused either way. Changes made here are audited as the person's own (`user.sso_create`,
 * `user.sso_roles`), in the change's transaction.
 */
import { Effect, Option } from "effect"
import { SqlClient } from "effect/sql"
import { Audit } from "../audit/Audit.ts"
import type { Principal } from "../kernel/Principal.ts"
import type { RoleGrant } from "../kernel/Roles.ts"
import { type UserInfo, Users } from "../users/Users.ts"
import type { Claims, OidcSetup } from "./Oidc.ts"
import { SsoError } from "./Oidc.ts"
import { rolesFromClaim } from "./RoleMap.ts"

export interface SignInContext {
  readonly requestId: string | null
  readonly address: string | null
}

const sameRoles = (a: ReadonlyArray<RoleGrant>, b: ReadonlyArray<RoleGrant>) => {
  const key = (grant: RoleGrant) => `${grant.role}\u0000${grant.org_id ?? ""}`
  const left = new Set(a.map(key))
  return left.size === new Set(b.map(key)).size && b.every((grant) => left.has(key(grant)))
}

const principalOf = (user: UserInfo): Principal => ({
  _tag: "User",
  userId: user.id,
  email: user.email,
  tokenId: null,
  roles: user.roles
})

export const signInUser = (setup: OidcSetup, claims: Claims, context: SignInContext) =>
  Effect.gen(function*() {
    const users = yield* Users
    const audit = yield* Audit
    const sql = yield* SqlClient.SqlClient

    const email = claims["email"]
    if (typeof email !== "string" || email === "") {
      return yield* SsoError.refused(
        "The identity provider sent no email for this person; the gateway needs the 'email' scope and claim."
      )
    }
    if (setup.requireVerifiedEmail && claims["email_verified"] !== true) {
      return yield* SsoError.refused(
        `The identity provider does not say ${email} is verified (email_verified); the gateway signs in verified emails only.`
      )
    }
    const mapped = setup.rolesClaim === undefined
      ? undefined
      : rolesFromClaim(setup.roleMap, claims[setup.rolesClaim])

    const record = (user: UserInfo, action: string, before: unknown) =>
      audit.record({
        principal: principalOf(user),
        action,
        targetKind: "user",
        targetId: user.id,
        orgId: null,
        before,
        after: user,
        requestId: context.requestId,
        address: context.address
      })

    const found = yield* users.findByEmail(email)
    let user: UserInfo
    if (Option.isSome(found)) {
      user = found.value
    } else if (mapped !== undefined && mapped.length > 0) {
      user = yield* sql.withTransaction(Effect.gen(function*() {
        const created = yield* users.create({ email, name: nameOf(claims, email) })
        const withRoles = yield* users.setRoles(created.id, mapped)
        yield* record(withRoles, "user.sso_create", null)
        return withRoles
      }))
    } else {
      return yield* SsoError.refused(
        mapped === undefined
          ? `No user has the email ${email}: ask an owner to add you (svc-gateway users create --email ${email}).`
          : `${email} has no role on this gateway: none of their groups is in GATEWAY_OIDC_ROLE_MAP.`
      )
    }
    if (user.disabled_at !== null) return yield* SsoError.refused(`The user ${email} is disabled.`)
    if (mapped !== undefined && !sameRoles(user.roles, mapped)) {
      const before = user
      user = yield* sql.withTransaction(Effect.gen(function*() {
        const updated = yield* users.setRoles(before.id, mapped)
        yield* record(updated, "user.sso_roles", before)
        return updated
      }))
    }
    return user
  })

const nameOf = (claims: Claims, email: string): string => {
  const name = claims["name"]
  return typeof name === "string" && name.trim() !== "" ? name.trim() : email
}
