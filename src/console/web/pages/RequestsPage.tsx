/** The request log of an organization: filtered pages, newest first, and one request's detail. */
import { useState } from "preact/hooks"
import { api, type LoggedRequest, type Org } from "../Api.ts"
import { DataTable, num, unseen } from "../parts/DataTable.tsx"
import { count, ms, time } from "../parts/Format.ts"
import { filterOf, LogFilters } from "../parts/LogFilters.tsx"
import { Empty, Notice } from "../parts/Notice.tsx"
import { StatusBadge } from "../parts/StatusBadge.tsx"
import { useAction, useLoad } from "../parts/useLoad.ts"
import { href, navigate, type Route } from "../Route.ts"
import { RequestDetail } from "./RequestDetail.tsx"

export const RequestsPage = (props: { readonly org: Org; readonly route: Route }) => {
  const orgId = props.org.id
  const query = props.route.params.toString()
  const keys = useLoad(() => api.keys(orgId), [orgId])
  const first = useLoad(() => api.requests(orgId, filterOf(props.route.params)), [orgId, query])
  // older pages, for the list they were loaded under: another org or filter starts from the first page
  const [loaded, setLoaded] = useState<
    { list: string; rows: ReadonlyArray<LoggedRequest>; cursor: string | null } | null
  >(null)
  const [moreError, setMoreError] = useState<string | null>(null)
  const { busy, run } = useAction()
  const list = `${orgId}?${query}`
  const more = loaded?.list === list ? loaded : null

  if (props.route.requestId !== undefined) {
    return (
      <RequestDetail
        org={props.org}
        requestId={props.route.requestId}
        back={href("requests", orgId, { params: props.route.params })}
        keys={keys.data ?? []}
      />
    )
  }

  const rows = [...(first.data?.data ?? []), ...(more?.rows ?? [])]
  const cursor = more === null ? first.data?.next_cursor ?? null : more.cursor
  const keyName = (id: string | null) => (keys.data ?? []).find((key) => key.id === id)?.name ?? id ?? "–"

  const loadMore = async () => {
    if (cursor === null) return
    const result = await run(() => api.requests(orgId, filterOf(props.route.params), cursor))
    if (!result.ok) return setMoreError(result.error)
    setMoreError(null)
    setLoaded({ list, rows: [...(more?.rows ?? []), ...result.value.data], cursor: result.value.next_cursor })
  }

  return (
    <section>
      <h1 tabIndex={-1}>
        Requests <span class="sub">of {props.org.name}</span>
      </h1>
      <LogFilters
        key={query}
        params={props.route.params}
        keys={keys.data ?? []}
        onApply={(params) => navigate(href("requests", orgId, { params }))}
      />
      {first.error === null ? null : <Notice message={{ kind: "error", text: first.error }} />}
      {rows.length === 0
        ? first.loading ? <p aria-busy="true">Loading…</p> : <Empty>No requests match these filters.</Empty>
        : (
          <DataTable
            label="Requests"
            class="requests"
            caption="Requests, newest first"
            columns={["Time", "Model", "Key", "Status", "Tags", num("Tokens"), num("Latency"), unseen("Detail")]}
          >
            {rows.map((row) => (
              <tr key={row.id} data-request-id={row.id}>
                <td title={row.created_at}>{time(row.created_at)}</td>
                <td>{row.requested_model ?? row.model ?? "–"}</td>
                <td>{keyName(row.key_id)}</td>
                <td>
                  <StatusBadge status={row.status} />
                </td>
                <td>{row.tags.map((tag) => <span class="tag" key={tag}>{tag}</span>)}</td>
                <td class="num">{count(row.total_tokens)}</td>
                <td class="num">{ms(row.latency_ms)}</td>
                <td>
                  <a href={href("requests", orgId, { requestId: row.id, params: props.route.params })}>
                    Detail<span class="visually-hidden">of {row.id}</span>
                  </a>
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      {moreError === null ? null : <Notice message={{ kind: "error", text: moreError }} />}
      {cursor === null ?
        null :
        <button type="button" onClick={loadMore} disabled={busy}>{busy ? "Loading…" : "Load older requests"}</button>}
    </section>
  )
}
