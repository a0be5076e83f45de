/**
 * Your account: who the gateway takes you to be, your roles, and your personal access tokens, which
 * you make (shown once), see and revoke here. A person signed in by single sign-on has no other way
 * to get one for the CLI or a script. The admin token is the gateway's own and has none.
 */
import { useState } from "preact/hooks"
import { grantsText, useAccess } from "../Access.ts"
import { api, keyStatus, type Org, type User, type UserToken } from "../Api.ts"
import { ConfirmDialog } from "../parts/ConfirmDialog.tsx"
import { DataTable, unseen } from "../parts/DataTable.tsx"
import { ExpiryField } from "../parts/ExpiryField.tsx"
import { endOfDay, time } from "../parts/Format.ts"
import { Empty, type Message, Notice } from "../parts/Notice.tsx"
import { SecretReveal } from "../parts/SecretReveal.tsx"
import { useAction, useLoad } from "../parts/useLoad.ts"

export const AccountPage = (props: { readonly orgs: ReadonlyArray<Org> }) => {
  const { me } = useAccess()
  const user = me?.user ?? null
  return (
    <section>
      <h1 tabIndex={-1}>Your account</h1>
      {user === null
        ? (
          <p>
            You are signed in with the admin token: the gateway's own, for setting it up and for automation. It has no
            roles or tokens of its own; people sign in with a personal access token or single sign-on.
          </p>
        )
        : (
          <>
            <p>
              <strong>{user.name}</strong> ({user.email}): {grantsText(user.roles, props.orgs)}.
            </p>
            <Tokens user={user} current={me?.token_id ?? null} />
          </>
        )}
    </section>
  )
}

const Tokens = (props: { readonly user: User; readonly current: string | null }) => {
  const userId = props.user.id
  const tokens = useLoad(() => api.tokens(userId), [userId])
  const [message, setMessage] = useState<Message | null>(null)
  const [created, setCreated] = useState<{ readonly name: string; readonly token: string } | null>(null)
  const [revoking, setRevoking] = useState<UserToken | null>(null)
  const [name, setName] = useState("")
  const [expires, setExpires] = useState("")
  const { busy, run } = useAction()

  const create = async (event: Event) => {
    event.preventDefault()
    const result = await run(() => api.createToken(userId, name.trim(), expires === "" ? null : endOfDay(expires)))
    // a refusal keeps what was typed, to be mended
    if (!result.ok) return setMessage({ kind: "error", text: result.error })
    setMessage(null)
    setCreated({ name: result.value.name, token: result.value.token })
    setName("")
    setExpires("")
    await tokens.reload()
  }

  const revoke = async () => {
    if (revoking === null) return
    const result = await run(() => api.revokeToken(userId, revoking.id))
    setMessage(
      result.ok
        ? { kind: "info", text: `Revoked token '${revoking.name}'. Calls with it are refused from now on.` }
        : { kind: "error", text: result.error }
    )
    setRevoking(null)
    await tokens.reload()
  }

  const list = tokens.data ?? []
  return (
    <>
      <h2>Personal access tokens</h2>
      <p class="hint">
        A token does what your roles allow, no more: use it as <code>--admin-token</code> with the CLI (and{" "}
        <code>--url</code>), as a bearer on the admin API, or to sign in here.
      </p>
      <Notice message={message} onDismiss={() => setMessage(null)} />
      {tokens.error === null ? null : <Notice message={{ kind: "error", text: tokens.error }} />}
      {created === null ? null : (
        <SecretReveal
          noun="token"
          label="The new personal access token"
          name={created.name}
          secret={created.token}
          onDone={() => setCreated(null)}
        />
      )}
      <form class="card" onSubmit={create}>
        <h3>Make a token</h3>
        <div class="fields">
          <div>
            <label for="token-name">Name</label>
            <input
              id="token-name"
              value={name}
              onInput={(event) => setName(event.currentTarget.value)}
              required
              maxLength={200}
              placeholder="laptop, CI, ..."
            />
          </div>
          <ExpiryField id="token-expires" value={expires} onChange={setExpires} />
        </div>
        <button type="submit" class="primary" disabled={busy}>Make token</button>
      </form>
      {list.length === 0
        ? tokens.loading ? <p aria-busy="true">Loading…</p> : <Empty>You have no personal access tokens yet.</Empty>
        : (
          <DataTable
            label="Personal access tokens"
            caption="Your personal access tokens"
            columns={["Name", "Token", "Status", "Made", "Expires", unseen("Actions")]}
          >
            {list.map((token) => {
              const status = keyStatus(token)
              return (
                <tr key={token.id} data-token-id={token.id}>
                  <td>
                    {token.name}
                    {token.id === props.current ? <div class="muted">this session's token</div> : null}
                  </td>
                  <td>
                    <code>{token.prefix}…</code>
                  </td>
                  <td>
                    <span class={`badge badge-${status}`}>{status}</span>
                  </td>
                  <td title={token.created_at}>{time(token.created_at)}</td>
                  <td title={token.expires_at ?? ""}>{time(token.expires_at)}</td>
                  <td class="links">
                    {status === "revoked" ?
                      null :
                      (
                        <button type="button" class="link danger" onClick={() => setRevoking(token)}>
                          Revoke<span class="visually-hidden">{token.name}</span>
                        </button>
                      )}
                  </td>
                </tr>
              )
            })}
          </DataTable>
        )}
      <ConfirmDialog
        open={revoking !== null}
        title={`Revoke token '${revoking?.name ?? ""}'?`}
        confirmLabel="Revoke token"
        busy={busy}
        onConfirm={revoke}
        onCancel={() => setRevoking(null)}
      >
        <p>
          Calls with this token (<code>{revoking?.prefix}…</code>) are refused from the moment it is revoked.
          {revoking !== null && revoking.id === props.current
            ? " You are signed in with it here, so this page signs out too."
            : ""} This cannot be undone.
        </p>
      </ConfirmDialog>
    </>
  )
}
