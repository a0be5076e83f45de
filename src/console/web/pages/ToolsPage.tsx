/**
 * An organization's shared tools: every installed tool with its description and parameters, whether
 * the org activates it, and hydration (the gateway adds the tool to requests that do not name it) for
 * the whole org or for chosen keys.
 */
import { useState } from "preact/hooks"
import { useAccess } from "../Access.ts"
import { api, type ApiKey, type JsonSchema, keyStatus, type Org, type SvcTool, type ToolSetting } from "../Api.ts"
import { DataTable } from "../parts/DataTable.tsx"
import { Empty, type Message, Notice } from "../parts/Notice.tsx"
import { ReadOnlyNote } from "../parts/ReadOnlyNote.tsx"
import { useAction, useLoad } from "../parts/useLoad.ts"

export const ToolsPage = (props: { readonly org: Org }) => {
  const orgId = props.org.id
  const changes = useAccess().administers(orgId)
  const loaded = useLoad(
    () => Promise.all([api.catalogue(), api.orgTools(orgId), api.keys(orgId)]),
    [orgId]
  )
  const [message, setMessage] = useState<Message | null>(null)
  const [catalogue = [], settings = [], keys = []] = loaded.data ?? []
  const settingOf = (id: string): ToolSetting =>
    settings.find((s) => s.id === id) ?? { id, activated: false, hydrate_org: false, hydrate_key_ids: [] }

  return (
    <section>
      <h1 tabIndex={-1}>
        Shared tools <span class="sub">of {props.org.name}</span>
      </h1>
      <p class="lead">
        Shared tools run at the gateway. An activated tool is usable by requests that name it in{" "}
        <code>svc_tool_ids</code>; hydration adds it to requests that do not name it.
      </p>
      <ReadOnlyNote org={props.org} what="its shared tools" />
      <Notice message={message} onDismiss={() => setMessage(null)} />
      {loaded.error === null ? null : <Notice message={{ kind: "error", text: loaded.error }} />}
      {catalogue.length === 0
        ? loaded.loading
          ? <p aria-busy="true">Loading…</p>
          : <Empty>No shared tools are installed in this gateway.</Empty>
        : catalogue.map((tool) => (
          <ToolCard
            // a new setting from the server resets the card's draft
            key={`${tool.id}:${JSON.stringify(settingOf(tool.id))}`}
            orgId={orgId}
            changes={changes}
            tool={tool}
            setting={settingOf(tool.id)}
            keys={keys.filter((key) => keyStatus(key) === "active")}
            onSaved={async (text) => {
              setMessage({ kind: "info", text })
              await loaded.reload()
            }}
            onError={(text) => setMessage({ kind: "error", text })}
          />
        ))}
    </section>
  )
}

const ToolCard = (props: {
  readonly orgId: string
  /** False for a viewer: the settings are shown, not offered for change. */
  readonly changes: boolean
  readonly tool: SvcTool
  readonly setting: ToolSetting
  readonly keys: ReadonlyArray<ApiKey>
  readonly onSaved: (message: string) => Promise<void>
  readonly onError: (message: string) => void
}) => {
  const { tool, setting } = props
  const [activated, setActivated] = useState(setting.activated)
  const [hydrateOrg, setHydrateOrg] = useState(setting.hydrate_org)
  const [hydrateKeys, setHydrateKeys] = useState<ReadonlyArray<string>>(setting.hydrate_key_ids)
  const { busy, run } = useAction()
  const changed = activated !== setting.activated || hydrateOrg !== setting.hydrate_org ||
    JSON.stringify([...hydrateKeys].sort()) !== JSON.stringify([...setting.hydrate_key_ids].sort())
  const id = `tool-${tool.id}`

  const save = async (event: Event) => {
    event.preventDefault()
    const result = await run(() =>
      api.setOrgTool(props.orgId, tool.id, { activated, hydrate_org: hydrateOrg, hydrate_key_ids: hydrateKeys })
    )
    if (!result.ok) return props.onError(`${tool.id}: ${result.error}`)
    const s = result.value
    const hydration = s.hydrate_org
      ? "hydrated for the whole organization"
      : s.hydrate_key_ids.length > 0
      ? `hydrated for ${s.hydrate_key_ids.length} key(s)`
      : "not hydrated"
    await props.onSaved(`${tool.id}: ${s.activated ? "activated" : "not activated"}, ${hydration}.`)
  }

  return (
    <form class="card tool" onSubmit={save} aria-labelledby={`${id}-title`} data-tool-id={tool.id}>
      <div class="tool-head">
        <h2 id={`${id}-title`}>
          <code>{tool.id}</code>
        </h2>
        <span class={`badge ${setting.activated ? "badge-active" : "badge-inactive"}`}>
          {setting.activated ? "activated" : "not activated"}
        </span>
      </div>
      <p>{tool.description}</p>
      <Parameters schema={tool.parameters} />
      <fieldset disabled={!props.changes}>
        <legend>For this organization</legend>
        <label class="check">
          <input type="checkbox" checked={activated} onChange={(event) => setActivated(event.currentTarget.checked)} />
          Activated
        </label>
        <label class="check">
          <input
            type="checkbox"
            checked={hydrateOrg}
            onChange={(event) => setHydrateOrg(event.currentTarget.checked)}
          />
          Hydrate for the whole organization
        </label>
        <fieldset class="nested" disabled={hydrateOrg}>
          <legend>Hydrate for chosen keys</legend>
          {props.keys.length === 0 ? <span class="muted">No active keys.</span> : null}
          {props.keys.map((key) => (
            <label class="check" key={key.id}>
              <input
                type="checkbox"
                checked={hydrateKeys.includes(key.id)}
                onChange={(event) =>
                  setHydrateKeys(
                    event.currentTarget.checked
                      ? [...hydrateKeys, key.id]
                      : hydrateKeys.filter((k) => k !== key.id)
                  )}
              />
              {key.name} <code>{key.prefix}…</code>
            </label>
          ))}
        </fieldset>
        {!activated && (hydrateOrg || hydrateKeys.length > 0)
          ? <p class="hint">Hydration takes effect only while the tool is activated.</p>
          : null}
      </fieldset>
      {!props.changes ? null : (
        <div class="actions">
          <button type="submit" class="primary" disabled={busy || !changed}>Save {tool.id}</button>
        </div>
      )}
    </form>
  )
}

const typeOf = (schema: JsonSchema): string =>
  schema.enum !== undefined
    ? schema.enum.map((value) => JSON.stringify(value)).join(" | ")
    : Array.isArray(schema.type)
    ? schema.type.join(" | ")
    : (schema.type as string | undefined) ?? "any"

const Parameters = (props: { readonly schema: JsonSchema }) => {
  const properties = Object.entries(props.schema.properties ?? {})
  const required = new Set(props.schema.required ?? [])
  return (
    <details class="parameters">
      <summary>Parameters ({properties.length})</summary>
      {properties.length === 0 ?
        <p class="muted">This tool takes no parameters.</p> :
        (
          <DataTable label="Parameters" columns={["Name", "Type", "Required", "Description"]}>
            {properties.map(([name, schema]) => (
              <tr key={name}>
                <td>
                  <code>{name}</code>
                </td>
                <td>{typeOf(schema)}</td>
                <td>{required.has(name) ? "yes" : "no"}</td>
                <td class="wrap">{schema.description ?? ""}</td>
              </tr>
            ))}
          </DataTable>
        )}
      <pre class="schema">{JSON.stringify(props.schema, null, 2)}</pre>
    </details>
  )
}
