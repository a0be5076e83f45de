/**
 * People: who may use the console and the admin API, with their roles. An owner adds people, gives any
 * role and disables or enables a person (she and her personal tokens are refused meanwhile); an
 * organization's admin sees everyone with their roles on her organizations and gives or takes admin and
 * viewer there. No one is offered to disable herself. Single sign-on adds people by itself; each person
 * makes her own personal access tokens on her account page.
 */
import { useState } from "preact/hooks"
import { grantsText, useAccess } from "../Access.ts"
import { api, type Org, type RoleGrant, type User } from "../Api.ts"
import { ConfirmDialog } from "../parts/ConfirmDialog.tsx"
import { DataTable, unseen } from "../parts/DataTable.tsx"
import { time } from "../parts/Format.ts"
import { Empty, type Message, Notice } from "../parts/Notice.tsx"
import { RolesEditor } from "../parts/RolesEditor.tsx"
import { useAction, useLoad } from "../parts/useLoad.ts"

export const PeoplePage = (props: { readonly orgs: ReadonlyArray<Org> }) => {
  const access = useAccess()
  if (!access.administersSome) {
    return (
      <section>
        <h1 tabIndex={-1}>People</h1>
        <p>
          This page is for the gateway's owners and organizations' admins; your roles let you read the organizations you
          are a viewer of.
        </p>
      </section>
    )
  }
  return <People orgs={props.orgs} />
}

const People = (props: { readonly orgs: ReadonlyArray<Org> }) => {
  const access = useAccess()
  const users = useLoad(api.users, [])
  const [message, setMessage] = useState<Message | null>(null)
  const [email, setEmail] = useState("")
  const [name, setName] = useState("")
  const [editing, setEditing] = useState<User | null>(null)
  const [disabling, setDisabling] = useState<User | null>(null)
  const { busy, run } = useAction()

  const create = async (event: Event) => {
    event.preventDefault()
    const result = await run(() => api.createUser(email.trim(), name.trim()))
    // a refusal keeps what was typed, to be mended
    if (!result.ok) return setMessage({ kind: "error", text: result.error })
    setEmail("")
    setName("")
    setMessage({ kind: "info", text: `Added ${result.value.name} (${result.value.email}). Give them roles below.` })
    setEditing(result.value)
    await users.reload()
  }

  const saveRoles = async (user: User, roles: ReadonlyArray<RoleGrant>) => {
    const result = await run(() => api.setUserRoles(user.id, roles))
    if (!result.ok) return setMessage({ kind: "error", text: result.error })
    setMessage({ kind: "info", text: `${user.name}: ${grantsText(result.value.roles, props.orgs)}.` })
    setEditing(null)
    await users.reload()
  }

  const setDisabled = async (user: User, disabled: boolean) => {
    const result = await run(() => api.setUserDisabled(user.id, disabled))
    setMessage(
      result.ok
        ? {
          kind: "info",
          text: disabled
            ? `Disabled ${user.name}: she and her personal tokens are refused until enabled again.`
            : `Enabled ${user.name} again.`
        }
        : { kind: "error", text: result.error }
    )
    setDisabling(null)
    await users.reload()
  }

  const list = users.data ?? []
  return (
    <section>
      <h1 tabIndex={-1}>People</h1>
      <Notice message={message} onDismiss={() => setMessage(null)} />
      {users.error === null ? null : <Notice message={{ kind: "error", text: users.error }} />}
      {!access.owner ? null : (
        <form class="card" onSubmit={create}>
          <h2>Add a person</h2>
          <div class="fields">
            <div>
              <label for="person-email">Email</label>
              <input
                id="person-email"
                type="email"
                value={email}
                onInput={(event) => setEmail(event.currentTarget.value)}
                required
                maxLength={318}
              />
            </div>
            <div>
              <label for="person-name">Name</label>
              <input
                id="person-name"
                value={name}
                onInput={(event) => setName(event.currentTarget.value)}
                required
                maxLength={200}
              />
            </div>
          </div>
          <button type="submit" class="primary" disabled={busy}>Add person</button>
        </form>
      )}

      {list.length === 0
        ? users.loading
          ? <p aria-busy="true">Loading…</p>
          : <Empty>No people yet: the admin token is the only way in.</Empty>
        : (
          <DataTable
            label="People"
            caption="People"
            columns={["Name", "Email", "Roles", "Status", "Added", unseen("Actions")]}
          >
            {list.map((user) => (
              <tr key={user.id} data-user-id={user.id}>
                <td>{user.name}</td>
                <td>{user.email}</td>
                <td data-cell="roles">{grantsText(user.roles, props.orgs)}</td>
                <td>
                  <span class={`badge badge-${user.disabled_at === null ? "active" : "revoked"}`}>
                    {user.disabled_at === null ? "active" : "disabled"}
                  </span>
                </td>
                <td title={user.created_at}>{time(user.created_at)}</td>
                <td class="links">
                  <button type="button" class="link" onClick={() => setEditing(user)}>
                    Edit roles<span class="visually-hidden">of {user.name}</span>
                  </button>
                  {!access.owner || user.id === access.me?.user?.id ? null : user.disabled_at === null
                    ? (
                      <button type="button" class="link danger" onClick={() => setDisabling(user)}>
                        Disable<span class="visually-hidden">{user.name}</span>
                      </button>
                    )
                    : (
                      <button type="button" class="link" disabled={busy} onClick={() => setDisabled(user, false)}>
                        Enable<span class="visually-hidden">{user.name}</span>
                      </button>
                    )}
                </td>
              </tr>
            ))}
          </DataTable>
        )}

      {editing === null ? null : (
        <RolesEditor
          key={editing.id}
          user={editing}
          orgs={props.orgs}
          busy={busy}
          save={(roles) => void saveRoles(editing, roles)}
          cancel={() => setEditing(null)}
        />
      )}
      <ConfirmDialog
        open={disabling !== null}
        title={`Disable ${disabling?.name ?? ""}?`}
        confirmLabel="Disable"
        busy={busy}
        onConfirm={() => disabling !== null && void setDisabled(disabling, true)}
        onCancel={() => setDisabling(null)}
      >
        <p>
          {disabling?.email}{" "}
          and her personal access tokens are refused from the moment she is disabled, until an owner enables her again.
          Her roles are kept.
        </p>
      </ConfirmDialog>
    </section>
  )
}
