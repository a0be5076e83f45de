/**
 * An organization's API keys: create one (its secret shown once), see every key with its prefix, dates
 * allowed shared tools and limits, change those tools and limits, revoke a key after a confirmation.
 * A viewer of the org sees the keys only: no form, no editing, no revoking.
 */
import { useEffect, useRef, useState } from "preact/hooks"
import { useAccess } from "../Access.ts"
import { api, type ApiKey, type CreatedKey, keyStatus, type Limits, limitsText, type Org } from "../Api.ts"
import { ConfirmDialog } from "../parts/ConfirmDialog.tsx"
import { DataTable, unseen } from "../parts/DataTable.tsx"
import { ExpiryField } from "../parts/ExpiryField.tsx"
import { endOfDay, time } from "../parts/Format.ts"
import { LimitsEditor } from "../parts/LimitsEditor.tsx"
import { Empty, type Message, Notice } from "../parts/Notice.tsx"
import { ReadOnlyNote } from "../parts/ReadOnlyNote.tsx"
import { SecretReveal } from "../parts/SecretReveal.tsx"
import { ToolChoice, toolsText } from "../parts/ToolChoice.tsx"
import { useAction, useLoad } from "../parts/useLoad.ts"

export const KeysPage = (props: { readonly org: Org }) => {
  const orgId = props.org.id
  const changes = useAccess().administers(orgId)
  const keys = useLoad(() => api.keys(orgId), [orgId])
  const tools = useLoad(api.catalogue, [])
  const [message, setMessage] = useState<Message | null>(null)
  const [created, setCreated] = useState<CreatedKey | null>(null)
  const [revoking, setRevoking] = useState<ApiKey | null>(null)
  const [editing, setEditing] = useState<{ readonly key: ApiKey; readonly tools: ReadonlyArray<string> | null } | null>(
    null
  )
  const [name, setName] = useState("")
  const [description, setDescription] = useState("")
  const [expires, setExpires] = useState("")
  const [allowed, setAllowed] = useState<ReadonlyArray<string> | null>(null)
  const { busy, run } = useAction()
  // the tools form opens below the table: take focus there, so keyboard users land in it
  const editTitle = useRef<HTMLHeadingElement>(null)
  useEffect(() => editTitle.current?.focus(), [editing?.key.id])

  const create = async (event: Event) => {
    event.preventDefault()
    const result = await run(() =>
      api.createKey(orgId, {
        name: name.trim(),
        ...(description.trim() === "" ? {} : { description: description.trim() }),
        expires_at: expires === "" ? null : endOfDay(expires),
        allowed_svc_tool_ids: allowed
      })
    )
    if (!result.ok) return setMessage({ kind: "error", text: result.error })
    setMessage(null)
    setCreated(result.value)
    setName("")
    setDescription("")
    setExpires("")
    setAllowed(null)
    await keys.reload()
  }

  const revoke = async () => {
    if (revoking === null) return
    const result = await run(() => api.revokeKey(revoking.id))
    setMessage(
      result.ok
        ? { kind: "info", text: `Revoked key '${revoking.name}'. Requests with it are refused from now on.` }
        : { kind: "error", text: result.error }
    )
    setRevoking(null)
    await keys.reload()
  }

  const saveTools = async (event: Event) => {
    event.preventDefault()
    if (editing === null) return
    const result = await run(() => api.setAllowedTools(editing.key.id, editing.tools))
    if (!result.ok) return setMessage({ kind: "error", text: result.error })
    setMessage({
      kind: "info",
      text: `Key '${editing.key.name}' may now use: ${toolsText(result.value.allowed_svc_tool_ids)}.`
    })
    setEditing(null)
    await keys.reload()
  }

  const saveLimits = async (key: ApiKey, limits: Limits) => {
    const result = await run(() => api.setKeyLimits(key.id, limits))
    setMessage(
      result.ok
        ? { kind: "info", text: `Key '${key.name}': limits are now ${limitsText(result.value.limits)}.` }
        : { kind: "error", text: result.error }
    )
    await keys.reload()
  }

  const catalogue = tools.data ?? []
  const list = keys.data ?? []
  return (
    <section>
      <h1 tabIndex={-1}>
        API keys <span class="sub">of {props.org.name}</span>
      </h1>
      <Notice message={message} onDismiss={() => setMessage(null)} />
      {keys.error === null && tools.error === null ?
        null :
        <Notice message={{ kind: "error", text: keys.error ?? tools.error ?? "" }} />}
      {created === null ? null : (
        <SecretReveal
          noun="key"
          label="The new API key"
          name={created.name}
          secret={created.key}
          onDone={() => setCreated(null)}
        />
      )}
      <ReadOnlyNote org={props.org} what="its keys" />

      {!changes ? null : (
        <form class="card" onSubmit={create}>
          <h2>Create a key</h2>
          <div class="fields">
            <div>
              <label for="key-name">Name</label>
              <input
                id="key-name"
                value={name}
                onInput={(event) => setName(event.currentTarget.value)}
                required
                maxLength={200}
              />
            </div>
            <div>
              <label for="key-description">Description (optional)</label>
              <input
                id="key-description"
                value={description}
                onInput={(event) => setDescription(event.currentTarget.value)}
                maxLength={1000}
                placeholder="what the key is for"
              />
            </div>
            <ExpiryField id="key-expires" value={expires} onChange={setExpires} />
          </div>
          <ToolChoice name="new-key-tools" tools={catalogue} value={allowed} onChange={setAllowed} />
          <button type="submit" class="primary" disabled={busy}>Create key</button>
        </form>
      )}

      {list.length === 0
        ? keys.loading ? <p aria-busy="true">Loading…</p> : <Empty>This organization has no keys yet.</Empty>
        : (
          <DataTable
            label="API keys"
            caption={`API keys of ${props.org.name}`}
            columns={[
              "Name",
              "Key",
              "Status",
              "Created",
              "Last used",
              "Expires",
              "Shared tools",
              "Limits",
              changes && unseen("Actions")
            ]}
          >
            {list.map((key) => {
              const status = keyStatus(key)
              return (
                <tr key={key.id} data-key-id={key.id}>
                  <td>
                    {key.name}
                    {key.description === null ? null : <div class="muted">{key.description}</div>}
                  </td>
                  <td>
                    <code>{key.prefix}…</code>
                  </td>
                  <td>
                    <span class={`badge badge-${status}`}>{status}</span>
                  </td>
                  <td title={key.created_at}>{time(key.created_at)}</td>
                  <td title={key.last_used_at ?? ""}>{time(key.last_used_at)}</td>
                  <td title={key.expires_at ?? ""}>{time(key.expires_at)}</td>
                  <td>{toolsText(key.allowed_svc_tool_ids)}</td>
                  <td>
                    {!changes ? limitsText(key.limits) : (
                      <LimitsEditor
                        owner={`key ${key.name}`}
                        id={key.id}
                        limits={key.limits}
                        busy={busy}
                        save={(limits) => saveLimits(key, limits)}
                      />
                    )}
                  </td>
                  {!changes ? null : (
                    <td class="links">
                      {status === "revoked" ? null : (
                        <>
                          <button
                            type="button"
                            class="link"
                            onClick={() => setEditing({ key, tools: key.allowed_svc_tool_ids })}
                          >
                            Edit tools<span class="visually-hidden">of {key.name}</span>
                          </button>
                          <button type="button" class="link danger" onClick={() => setRevoking(key)}>
                            Revoke<span class="visually-hidden">{key.name}</span>
                          </button>
                        </>
                      )}
                    </td>
                  )}
                </tr>
              )
            })}
          </DataTable>
        )}

      {editing === null ? null : (
        <form class="card" onSubmit={saveTools} aria-labelledby="edit-tools-title">
          <h2 id="edit-tools-title" ref={editTitle} tabIndex={-1}>Shared tools of key '{editing.key.name}'</h2>
          <ToolChoice
            name="edit-key-tools"
            tools={catalogue}
            value={editing.tools}
            onChange={(value) => setEditing({ key: editing.key, tools: value })}
          />
          <div class="actions">
            <button type="button" onClick={() => setEditing(null)}>Cancel</button>
            <button type="submit" class="primary" disabled={busy}>Save tools</button>
          </div>
        </form>
      )}

      <ConfirmDialog
        open={revoking !== null}
        title={`Revoke key '${revoking?.name ?? ""}'?`}
        confirmLabel="Revoke key"
        busy={busy}
        onConfirm={revoke}
        onCancel={() => setRevoking(null)}
      >
        <p>
          Requests with this key (<code>{revoking?.prefix}…</code>) are refused from the moment it is revoked. This
          cannot be undone.
        </p>
      </ConfirmDialog>
    </section>
  )
}
