/**
 * Organizations: the list, a form to create one, whether each stores prompt and completion text, its
 * compression level and its rate limits and budgets; and the circuit breakers of the gateway's targets.
 * A person sees the organizations she has a role in, and changes those she administers; creating one
 * and the circuit breakers are for the gateway's owners.
 */
import { useState } from "preact/hooks"
import { useAccess } from "../Access.ts"
import { api, COMPRESSION_LEVELS, type CompressionLevel, type Limits, limitsText, type Org } from "../Api.ts"
import { CircuitBreakers } from "../parts/CircuitBreakers.tsx"
import { DataTable, unseen } from "../parts/DataTable.tsx"
import { time } from "../parts/Format.ts"
import { LimitsEditor } from "../parts/LimitsEditor.tsx"
import { Empty, type Message, Notice } from "../parts/Notice.tsx"
import { useAction } from "../parts/useLoad.ts"
import { href } from "../Route.ts"

export const OrgsPage = (props: {
  readonly orgs: ReadonlyArray<Org>
  readonly loading: boolean
  readonly reload: () => Promise<void>
}) => {
  const [name, setName] = useState("")
  const [message, setMessage] = useState<Message | null>(null)
  const { busy, run } = useAction()
  const access = useAccess()
  // what a box was just set to, shown while the change is saved (the list reloads after)
  const [saving, setSaving] = useState<Readonly<Record<string, boolean>>>({})

  const create = async (event: Event) => {
    event.preventDefault()
    const result = await run(() => api.createOrg(name.trim()))
    if (!result.ok) return setMessage({ kind: "error", text: result.error })
    setName("")
    setMessage({ kind: "info", text: `Created organization '${result.value.name}'.` })
    await props.reload()
  }

  const setLogContent = async (org: Org, on: boolean) => {
    setSaving({ ...saving, [org.id]: on })
    const result = await run(() => api.setLogContent(org.id, on))
    setMessage(
      result.ok
        ? {
          kind: "info",
          text: `${org.name}: prompt and completion text ${
            on ? "are now stored" : "are no longer stored"
          } in the request log.`
        }
        : { kind: "error", text: result.error }
    )
    await props.reload()
    setSaving(({ [org.id]: _, ...rest }) => rest)
  }

  const setCompression = async (org: Org, level: CompressionLevel | null) => {
    const result = await run(() => api.setCompression(org.id, level))
    setMessage(
      result.ok
        ? { kind: "info", text: `${org.name}: compression is now ${level ?? "the gateway's default"}.` }
        : { kind: "error", text: result.error }
    )
    await props.reload()
  }

  const setLimits = async (org: Org, limits: Limits) => {
    const result = await run(() => api.setOrgLimits(org.id, limits))
    setMessage(
      result.ok
        ? { kind: "info", text: `${org.name}: limits are now ${limitsText(result.value.limits)}.` }
        : { kind: "error", text: result.error }
    )
    await props.reload()
  }

  return (
    <section>
      <h1 tabIndex={-1}>Organizations</h1>
      <Notice message={message} onDismiss={() => setMessage(null)} />
      {!access.owner ? null : (
        <form class="card inline-form" onSubmit={create}>
          <h2>Create an organization</h2>
          <label for="org-name">Name</label>
          <input
            id="org-name"
            value={name}
            onInput={(event) => setName(event.currentTarget.value)}
            required
            maxLength={200}
          />
          <button type="submit" class="primary" disabled={busy}>Create organization</button>
        </form>
      )}
      {props.orgs.length === 0
        ? props.loading
          ? <p aria-busy="true">Loading…</p>
          : (
            <Empty>
              {access.owner
                ? "No organizations yet: create the first one above."
                : "You have no role in any organization yet: ask one of the gateway's owners or an organization's admin."}
            </Empty>
          )
        : (
          <DataTable
            label="Organizations"
            caption="Organizations"
            columns={["Name", "ID", "Created", "Stores prompts", "Compression", "Limits", unseen("Pages")]}
          >
            {props.orgs.map((org) =>
              access.administers(org.id)
                ? (
                  <tr key={org.id}>
                    <OrgHead org={org} />
                    <td>
                      <label class="check">
                        <input
                          type="checkbox"
                          checked={saving[org.id] ?? org.log_content}
                          disabled={busy}
                          onChange={(event) => setLogContent(org, event.currentTarget.checked)}
                        />
                        <span class="visually-hidden">Store prompt and completion text for {org.name}</span>
                        {saving[org.id] ?? org.log_content ? "yes" : "no"}
                      </label>
                    </td>
                    <td>
                      <label>
                        <span class="visually-hidden">Compression for {org.name}</span>
                        <select
                          value={org.compression ?? ""}
                          disabled={busy}
                          onChange={(event) => {
                            const value = event.currentTarget.value
                            void setCompression(org, value === "" ? null : value as CompressionLevel)
                          }}
                        >
                          <option value="">gateway default</option>
                          {COMPRESSION_LEVELS.map((level) => <option key={level} value={level}>{level}</option>)}
                        </select>
                      </label>
                    </td>
                    <td>
                      <LimitsEditor
                        owner={org.name}
                        id={org.id}
                        limits={org.limits}
                        busy={busy}
                        save={(limits) => setLimits(org, limits)}
                      />
                    </td>
                    <OrgLinks org={org} />
                  </tr>
                )
                : (
                  // a viewer reads the settings; her role does not change them
                  <tr key={org.id}>
                    <OrgHead org={org} />
                    <td>{org.log_content ? "yes" : "no"}</td>
                    <td>{org.compression ?? "gateway default"}</td>
                    <td>{limitsText(org.limits)}</td>
                    <OrgLinks org={org} />
                  </tr>
                )
            )}
          </DataTable>
        )}
      {access.owner ? <CircuitBreakers /> : null}
    </section>
  )
}

const OrgHead = (props: { readonly org: Org }) => (
  <>
    <td>{props.org.name}</td>
    <td>
      <code>{props.org.id}</code>
    </td>
    <td title={props.org.created_at}>{time(props.org.created_at)}</td>
  </>
)

const OrgLinks = (props: { readonly org: Org }) => (
  <td class="links">
    <a href={href("keys", props.org.id)}>API keys</a>
    <a href={href("tools", props.org.id)}>Shared tools</a>
    <a href={href("requests", props.org.id)}>Requests</a>
  </td>
)
