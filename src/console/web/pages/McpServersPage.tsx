/**
 * An organization's remote MCP servers: each with its URL, the names of the headers the gateway sends
 * it (never their values), the tools it offers as shared tools `svc_mcp_<server>_<tool>`, the tools left
 * out and why, and why it could not be asked last time. Its admins add a server (the gateway asks it
 * for its tools before answering), authorize the gateway at one that takes OAuth (off to its
 * authorization server and back), ask one again, and remove one after a confirmation; a viewer reads.
 */
import { useState } from "preact/hooks"
import { useAccess } from "../Access.ts"
import { call, type McpServer, type Org } from "../Api.ts"
import { ConfirmDialog } from "../parts/ConfirmDialog.tsx"
import { DataTable } from "../parts/DataTable.tsx"
import { time } from "../parts/Format.ts"
import { type HeaderRow, HeaderRows, headersOf, headersProblem, newHeaderRow } from "../parts/McpHeaderRows.tsx"
import { Empty, type Message, Notice } from "../parts/Notice.tsx"
import { ReadOnlyNote } from "../parts/ReadOnlyNote.tsx"
import { useAction, useLoad } from "../parts/useLoad.ts"
import { href } from "../Route.ts"

/** `3 tools`, `1 tool`, `no tools`. */
const toolsCount = (n: number) => (n === 0 ? "no tools" : n === 1 ? "1 tool" : `${n} tools`)

/** What the gateway found when it asked a server just added or refreshed: its tools, or why it could not. */
const outcome = (server: McpServer, added: boolean): Message => {
  const named = `MCP server '${server.name}'`
  if (server.last_error === null) {
    const tools = toolsCount(server.tools.length)
    return { kind: "info", text: added ? `Added ${named}: it offers ${tools}.` : `${named} now offers ${tools}.` }
  }
  return {
    kind: "error",
    text: added
      ? `Added ${named}, but the gateway could not ask it for its tools: ${server.last_error}`
      : `The gateway could not ask ${named} for its tools: ${server.last_error}`
  }
}

export const McpServersPage = (props: { readonly org: Org }) => {
  const orgId = props.org.id
  const changes = useAccess().administers(orgId)
  const servers = useLoad(
    () => call("mcpServers", "list", { params: { org_id: orgId } }).then((list) => list.data),
    [orgId]
  )
  const [message, setMessage] = useState<Message | null>(null)
  const [removing, setRemoving] = useState<McpServer | null>(null)
  const [name, setName] = useState("")
  const [url, setUrl] = useState("")
  const [headers, setHeaders] = useState<ReadonlyArray<HeaderRow>>(() => [newHeaderRow()])
  const [oauth, setOauth] = useState(false)
  const { busy, run } = useAction()

  const add = async (event: Event) => {
    event.preventDefault()
    const problem = oauth ? null : headersProblem(headers)
    if (problem !== null) return setMessage({ kind: "error", text: problem })
    const sent = oauth ? {} : headersOf(headers)
    const result = await run(() =>
      call("mcpServers", "create", {
        params: { org_id: orgId },
        payload: {
          name: name.trim(),
          url: url.trim(),
          ...(Object.keys(sent).length === 0 ? {} : { headers: sent }),
          ...(oauth ? { oauth: true } : {})
        }
      })
    )
    if (!result.ok) return setMessage({ kind: "error", text: result.error })
    setMessage(outcome(result.value, true))
    // the values leave the page with the form: they are never shown again
    setName("")
    setUrl("")
    setHeaders([newHeaderRow()])
    setOauth(false)
    await servers.reload()
  }

  /** Off to the server's authorization server; it sends the browser back to this page. */
  const authorize = async (server: McpServer) => {
    const result = await run(() => call("mcpServers", "authorize", { params: { org_id: orgId, server_id: server.id } }))
    if (!result.ok) return setMessage({ kind: "error", text: `${server.name}: ${result.error}` })
    if (result.value.authorization_url === null) {
      setMessage({ kind: "info", text: `The gateway's authorization at '${server.name}' still works.` })
      return
    }
    location.assign(result.value.authorization_url)
  }

  const refresh = async (server: McpServer) => {
    const result = await run(() => call("mcpServers", "refresh", { params: { org_id: orgId, server_id: server.id } }))
    setMessage(result.ok ? outcome(result.value, false) : { kind: "error", text: `${server.name}: ${result.error}` })
    await servers.reload()
  }

  const remove = async () => {
    if (removing === null) return
    const result = await run(() => call("mcpServers", "remove", { params: { org_id: orgId, server_id: removing.id } }))
    setMessage(
      result.ok
        ? { kind: "info", text: `Removed MCP server '${removing.name}' and its tools.` }
        : { kind: "error", text: result.error }
    )
    setRemoving(null)
    await servers.reload()
  }

  const list = servers.data ?? []
  return (
    <section>
      <h1 tabIndex={-1}>
        MCP servers <span class="sub">of {props.org.name}</span>
      </h1>
      <p class="lead">
        A remote MCP server's tools become this organization's shared tools, named{" "}
        <code>svc_mcp_&lt;server&gt;_&lt;tool&gt;</code>. Activate them on the{" "}
        <a href={href("tools", orgId)}>Shared tools</a> page like any other shared tool.
      </p>
      <ReadOnlyNote org={props.org} what="its MCP servers" />
      <Notice message={message} onDismiss={() => setMessage(null)} />
      {servers.error === null ? null : <Notice message={{ kind: "error", text: servers.error }} />}

      {!changes ? null : (
        <form class="card" onSubmit={add} aria-labelledby="mcp-add-title">
          <h2 id="mcp-add-title">Add an MCP server</h2>
          <div class="fields">
            <div>
              <label for="mcp-name">Name</label>
              <input
                id="mcp-name"
                value={name}
                onInput={(event) => setName(event.currentTarget.value)}
                required
                maxLength={24}
                pattern="[a-z0-9]{1,24}"
                title="1 to 24 lower-case letters and digits"
                aria-describedby="mcp-name-hint"
                autocomplete="off"
                spellcheck={false}
              />
              <p class="hint" id="mcp-name-hint">1 to 24 lower-case letters and digits, unique on the gateway.</p>
            </div>
            <div>
              <label for="mcp-url">URL</label>
              <input
                id="mcp-url"
                type="url"
                value={url}
                onInput={(event) => setUrl(event.currentTarget.value)}
                required
                placeholder="https://mcp.example.com/mcp"
                aria-describedby="mcp-url-hint"
                autocomplete="off"
                spellcheck={false}
              />
              <p class="hint" id="mcp-url-hint">Its streamable HTTP endpoint.</p>
            </div>
          </div>
          <label class="check">
            <input type="checkbox" checked={oauth} onChange={(event) => setOauth(event.currentTarget.checked)} />
            Authorize with OAuth (after adding it, sign in at the server's authorization server)
          </label>
          {oauth ? null : <HeaderRows rows={headers} onChange={setHeaders} />}
          <button type="submit" class="primary" disabled={busy}>Add server</button>
        </form>
      )}

      {list.length === 0
        ? servers.loading
          ? <p aria-busy="true">Loading…</p>
          : <Empty>This organization has no MCP servers yet.</Empty>
        : list.map((server) => (
          <ServerCard
            key={server.id}
            server={server}
            changes={changes}
            busy={busy}
            onRefresh={() => void refresh(server)}
            onAuthorize={() => void authorize(server)}
            onRemove={() => setRemoving(server)}
          />
        ))}

      {!changes ? null : (
        <ConfirmDialog
          open={removing !== null}
          title={`Remove MCP server '${removing?.name ?? ""}'?`}
          confirmLabel="Remove server"
          busy={busy}
          onConfirm={() => void remove()}
          onCancel={() => setRemoving(null)}
        >
          <p>
            Its {toolsCount(removing?.tools.length ?? 0)}{" "}
            (<code>svc_mcp_{removing?.name}_…</code>) stop being offered to this organization's requests at once, and
            the headers kept for it are deleted. This cannot be undone.
          </p>
        </ConfirmDialog>
      )}
    </section>
  )
}

const ServerCard = (props: {
  readonly server: McpServer
  /** False for a viewer: no buttons. */
  readonly changes: boolean
  readonly busy: boolean
  readonly onRefresh: () => void
  readonly onAuthorize: () => void
  readonly onRemove: () => void
}) => {
  const { server } = props
  const id = `mcp-${server.id}`
  return (
    <article class="card mcp-server" aria-labelledby={`${id}-title`} data-server-id={server.id}>
      <div class="tool-head">
        <h2 id={`${id}-title`}>
          <code>{server.name}</code>
        </h2>
        <span class={`badge ${server.last_error === null ? "badge-active" : "badge-revoked"}`}>
          {server.last_error === null ? toolsCount(server.tools.length) : "could not be asked"}
        </span>
      </div>
      {server.last_error === null ? null : (
        <div class="notice notice-error" data-last-error>
          <p>
            <strong>Last error:</strong> {server.last_error}
          </p>
        </div>
      )}
      <dl class="detail">
        <dt>URL</dt>
        <dd>
          <code data-cell="url">{server.url}</code>
        </dd>
        <dt>Headers</dt>
        <dd data-cell="headers">
          {server.header_names.length === 0 ? <span class="muted">none</span> : (
            <>
              {server.header_names.map((header) => <code class="tag" key={header}>{header}</code>)}
              <span class="muted">(values kept sealed)</span>
            </>
          )}
        </dd>
        {!server.oauth ? null : (
          <>
            <dt>OAuth</dt>
            <dd data-cell="oauth">
              {server.authorized_at === null
                ? <strong>not authorized yet</strong>
                : <span title={server.authorized_at}>authorized {time(server.authorized_at)}</span>}
            </dd>
          </>
        )}
        <dt>Refreshed</dt>
        <dd title={server.refreshed_at ?? ""}>{time(server.refreshed_at, "not yet")}</dd>
        <dt>Added</dt>
        <dd title={server.created_at}>{time(server.created_at)}</dd>
      </dl>
      <details class="parameters" data-tools>
        <summary>Tools ({server.tools.length})</summary>
        {server.tools.length === 0 ?
          <p class="muted">It offers no tools{server.last_error === null ? "." : " that the gateway could list."}</p> :
          (
            <DataTable label={`Tools of ${server.name}`} columns={["Shared tool", "Description"]}>
              {server.tools.map((tool) => (
                <tr key={tool.id} data-tool-id={tool.id}>
                  <td>
                    <code>{tool.id}</code>
                  </td>
                  <td class="wrap">{tool.description}</td>
                </tr>
              ))}
            </DataTable>
          )}
      </details>
      {server.rejected_tools.length === 0 ? null : (
        <div data-rejected>
          <h3 class="mcp-subhead">Left out ({server.rejected_tools.length})</h3>
          <ul class="mcp-rejected">
            {server.rejected_tools.map((tool) => (
              <li key={tool.name}>
                <code>{tool.name}</code>: {tool.reason}
              </li>
            ))}
          </ul>
        </div>
      )}
      {!props.changes ? null : (
        <div class="actions">
          {!server.oauth ? null : (
            <button
              type="button"
              class={server.authorized_at === null ? "primary" : undefined}
              onClick={props.onAuthorize}
              disabled={props.busy}
            >
              Authorize<span class="visually-hidden">{server.name}</span>
            </button>
          )}
          <button type="button" onClick={props.onRefresh} disabled={props.busy}>
            Refresh<span class="visually-hidden">{server.name}</span>
          </button>
          <button type="button" class="danger" onClick={props.onRemove} disabled={props.busy}>
            Remove<span class="visually-hidden">{server.name}</span>
          </button>
        </div>
      )}
    </article>
  )
}
