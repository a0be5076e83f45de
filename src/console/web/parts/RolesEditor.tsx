/**
 * A person's roles as a form: for each organization the signed-in person administers, no role, viewer
 * or admin; for an owner, also the owner role over the whole gateway. Roles on organizations she does not
 * administer are neither shown nor sent: the API keeps them as they are.
 */
import { useEffect, useRef, useState } from "preact/hooks"
import { useAccess } from "../Access.ts"
import type { Org, RoleGrant, User } from "../Api.ts"

type OrgRole = "" | "viewer" | "admin"

/** Her role on the org as one choice: admin where she holds both. */
const roleOn = (user: User, orgId: string): OrgRole =>
  user.roles.some((grant) => grant.role === "admin" && grant.org_id === orgId)
    ? "admin"
    : user.roles.some((grant) => grant.role === "viewer" && grant.org_id === orgId)
    ? "viewer"
    : ""

export const RolesEditor = (props: {
  readonly user: User
  readonly orgs: ReadonlyArray<Org>
  readonly busy: boolean
  readonly save: (roles: ReadonlyArray<RoleGrant>) => void
  readonly cancel: () => void
}) => {
  const access = useAccess()
  const { user } = props
  const editable = props.orgs.filter((org) => access.administers(org.id))
  const [owner, setOwner] = useState(user.roles.some((grant) => grant.role === "owner"))
  const [chosen, setChosen] = useState<Readonly<Record<string, OrgRole>>>(() =>
    Object.fromEntries(editable.map((org) => [org.id, roleOn(user, org.id)]))
  )
  // the form opens below the table: take focus there, so keyboard users land in it
  const title = useRef<HTMLHeadingElement>(null)
  useEffect(() => title.current?.focus(), [user.id])

  const submit = (event: Event) => {
    event.preventDefault()
    const roles: Array<RoleGrant> = access.owner && owner ? [{ role: "owner", org_id: null }] : []
    for (const org of editable) {
      const role = chosen[org.id] ?? ""
      if (role !== "") roles.push({ role, org_id: org.id })
    }
    props.save(roles)
  }

  return (
    <form class="card" onSubmit={submit} aria-labelledby="edit-roles-title" data-roles-of={user.id}>
      <h2 id="edit-roles-title" ref={title} tabIndex={-1}>Roles of {user.name}</h2>
      {!access.owner ? null : (
        <label class="check">
          <input type="checkbox" checked={owner} onChange={(event) => setOwner(event.currentTarget.checked)} />
          Owner of the gateway (every organization, people and settings)
        </label>
      )}
      {editable.length === 0 ? <p class="hint">There are no organizations to give a role on yet.</p> : (
        <fieldset>
          <legend>Role in each organization{access.owner ? "" : " you administer"}</legend>
          <div class="fields">
            {editable.map((org) => (
              <div key={org.id}>
                <label for={`role-${org.id}`}>{org.name}</label>
                <select
                  id={`role-${org.id}`}
                  value={chosen[org.id] ?? ""}
                  onChange={(event) => setChosen({ ...chosen, [org.id]: event.currentTarget.value as OrgRole })}
                >
                  <option value="">no role</option>
                  <option value="viewer">viewer</option>
                  <option value="admin">admin</option>
                </select>
              </div>
            ))}
          </div>
        </fieldset>
      )}
      <div class="actions">
        <button type="button" onClick={props.cancel}>Cancel</button>
        <button type="submit" class="primary" disabled={props.busy}>Save roles</button>
      </div>
    </form>
  )
}
