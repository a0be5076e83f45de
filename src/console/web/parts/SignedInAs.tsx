/**
 * Who is signed in, in the header: the admin token, or the person's name and email, with her roles
 * (owner, or admin and viewer of which organizations). The name leads to her account: her tokens.
 */
import { rolesText } from "../Access.ts"
import type { Me, Org } from "../Api.ts"
import { href } from "../Route.ts"

export const SignedInAs = (props: { readonly me: Me | null; readonly orgs: ReadonlyArray<Org> }) => {
  const { me } = props
  if (me === null) return null
  return (
    <p class="who">
      <span class="visually-hidden">Signed in as</span> {me.user === null
        ? (
          <a href={href("account")}>
            <strong>admin token</strong>
          </a>
        )
        : (
          <>
            <a href={href("account")}>
              <strong>{me.user.name}</strong>
            </a>{" "}
            <span class="who-email">({me.user.email})</span>
          </>
        )}
      <span class="visually-hidden">:</span> <span class="who-roles">{rolesText(me, props.orgs)}</span>
    </p>
  )
}
