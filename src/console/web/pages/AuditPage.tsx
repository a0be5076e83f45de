/**
 * An organization's audit log, for its admins and the gateway's owners: every change made to it through
 * the admin API, the CLI or the console (its settings, keys and shared tools), newest first, filtered
 * by action, actor and time, each row opening into the values before and after.
 */
import { useState } from "preact/hooks"
import { useAccess } from "../Access.ts"
import { api, type AuditRecord, type Org } from "../Api.ts"
import { actorText } from "../parts/AuditChange.ts"
import { auditFilterOf, AuditFilters } from "../parts/AuditFilters.tsx"
import { AuditTable } from "../parts/AuditTable.tsx"
import { Empty, Notice } from "../parts/Notice.tsx"
import { useAction, useLoad } from "../parts/useLoad.ts"
import { href, navigate, type Route } from "../Route.ts"

/** Records per page (the API gives 200 at most). */
const PAGE = 50

export const AuditPage = (props: { readonly org: Org; readonly route: Route }) =>
  useAccess().administers(props.org.id) ? <AuditLog org={props.org} route={props.route} /> : (
    <section>
      <h1 tabIndex={-1}>
        Audit log <span class="sub">of {props.org.name}</span>
      </h1>
      <p>
        The audit log of {props.org.name}{" "}
        is for its admins and the gateway's owners; your role lets you read its keys, requests and spend.{" "}
        <a href={href("keys", props.org.id)}>Go to its API keys</a>.
      </p>
    </section>
  )

const AuditLog = (props: { readonly org: Org; readonly route: Route }) => {
  const orgId = props.org.id
  const query = props.route.params.toString()
  const first = useLoad(() => api.audit(orgId, auditFilterOf(props.route.params), PAGE), [orgId, query])
  // older records, for the list they were loaded under: another org or filter starts from the newest
  const [loaded, setLoaded] = useState<{ list: string; rows: ReadonlyArray<AuditRecord>; full: boolean } | null>(null)
  const [moreError, setMoreError] = useState<string | null>(null)
  const { busy, run } = useAction()
  const list = `${orgId}?${query}`
  const more = loaded?.list === list ? loaded : null

  const rows = [...(first.data ?? []), ...(more?.rows ?? [])]
  // a full page may have older records behind it
  const older = more === null ? (first.data ?? []).length === PAGE : more.full

  const loadMore = async () => {
    const oldest = rows.at(-1)
    if (oldest === undefined) return
    // up to and including the oldest record's millisecond, so records made in the same one are not lost
    const to = new Date(Date.parse(oldest.created_at) + 1).toISOString()
    const result = await run(() => api.audit(orgId, { ...auditFilterOf(props.route.params), to }, PAGE))
    if (!result.ok) return setMoreError(result.error)
    setMoreError(null)
    const shown = new Set(rows.map((row) => row.id))
    const fresh = result.value.filter((row) => !shown.has(row.id))
    setLoaded({ list, rows: [...(more?.rows ?? []), ...fresh], full: result.value.length === PAGE && fresh.length > 0 })
  }

  const actors = [...new Set(rows.flatMap((row) => row.actor.kind === "user" ? [actorText(row)] : []))]
  return (
    <section>
      <h1 tabIndex={-1}>
        Audit log <span class="sub">of {props.org.name}</span>
      </h1>
      <p class="lead">
        Every change to this organization, its keys and its shared tools, made through the admin API, the CLI or this
        console: who made it, when, and the values before and after (never a key's secret).
      </p>
      <AuditFilters
        key={query}
        params={props.route.params}
        actors={actors}
        onApply={(params) => navigate(href("audit", orgId, { params }))}
      />
      {first.error === null ? null : <Notice message={{ kind: "error", text: first.error }} />}
      {rows.length === 0
        ? first.loading ? <p aria-busy="true">Loading…</p> : <Empty>No change matches these filters.</Empty>
        : <AuditTable caption={`Changes to ${props.org.name}, newest first`} records={rows} />}
      {moreError === null ? null : <Notice message={{ kind: "error", text: moreError }} />}
      {!older || rows.length === 0 ?
        null :
        <button type="button" onClick={loadMore} disabled={busy}>{busy ? "Loading…" : "Load older changes"}</button>}
    </section>
  )
}
