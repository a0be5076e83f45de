/**
 * An organization's client sessions (a coding agent's conversation, named by the session header its
 * client sends) active in a period of UTC days, newest activity first, each leading to its timeline.
 * Every figure is the gateway's sum over the session's requests in the period.
 */
import { api, type Org, type SessionSummary } from "../Api.ts"
import { clientName } from "../parts/ClientName.ts"
import { DataTable, num } from "../parts/DataTable.tsx"
import { count, percent, time } from "../parts/Format.ts"
import { Empty, Notice } from "../parts/Notice.tsx"
import { describePeriod } from "../parts/Period.ts"
import { PeriodControls, useRoutePeriod } from "../parts/RoutePeriod.tsx"
import { SessionCost, SessionSaved } from "../parts/SessionFigures.tsx"
import { useLoad } from "../parts/useLoad.ts"
import { href, type Route } from "../Route.ts"
import { SessionTimeline } from "./SessionTimeline.tsx"

/** The API's most sessions in one answer; it has no further pages, so a shorter period shows older ones. */
const MOST = 200

export const SessionsPage = (props: { readonly org: Org; readonly route: Route }) =>
  props.route.sessionId === undefined ? <SessionList org={props.org} route={props.route} /> : (
    <SessionTimeline
      org={props.org}
      sessionId={props.route.sessionId}
      back={href("sessions", props.org.id, { params: props.route.params })}
    />
  )

const SessionList = (props: { readonly org: Org; readonly route: Route }) => {
  const orgId = props.org.id
  const at = useRoutePeriod("sessions", orgId, props.route)
  const period = at.period
  const sessions = useLoad(
    () => api.sessions(orgId, { from: period.from, to: period.to }, MOST),
    [orgId, period.from, period.to]
  )

  const rows = sessions.data ?? []
  return (
    <section>
      <h1 tabIndex={-1}>
        Sessions <span class="sub">of {props.org.name}</span>
      </h1>
      <p class="lead">
        A session is one conversation of a coding agent: the requests that carried the same{" "}
        <code>X-Claude-Code-Session-Id</code> (Claude Code), <code>session-id</code> (Codex) or{" "}
        <code>x-svc-session-id</code> header. Its figures here count its requests in the period.
      </p>
      <PeriodControls at={at} />
      {sessions.error === null ? null : <Notice message={{ kind: "error", text: sessions.error }} />}
      <h2>{describePeriod(period)}</h2>
      {rows.length === 0
        ? sessions.loading ? <p aria-busy="true">Loading…</p> : <Empty>No session in this period.</Empty>
        : <SessionTable orgId={orgId} rows={rows} params={props.route.params} />}
      {rows.length < MOST ? null : (
        <p class="hint">
          The {MOST} sessions active most recently; choose a shorter or earlier period to see others.
        </p>
      )}
    </section>
  )
}

const SessionTable = (
  props: { readonly orgId: string; readonly rows: ReadonlyArray<SessionSummary>; readonly params: URLSearchParams }
) => (
  <DataTable
    label="Sessions"
    class="sessions"
    caption="Sessions, newest activity first"
    columns={[
      "Session",
      "Client",
      "Developer",
      "First request",
      "Last request",
      num("Requests"),
      num("Errors"),
      num("Tokens in"),
      num("Tokens out"),
      num("Cache hits"),
      num("Cost"),
      num("Saved"),
      num("Tool runs"),
      "Models"
    ]}
  >
    {props.rows.map((s) => (
      <tr key={s.session_id} data-session-id={s.session_id}>
        <th scope="row">
          <a href={href("sessions", props.orgId, { sessionId: s.session_id, params: props.params })}>
            <code>{s.session_id}</code>
          </a>
        </th>
        <td title={s.client ?? undefined}>{clientName(s.client)}</td>
        <td>{s.developer ?? "–"}</td>
        <td title={s.first_request_at}>{time(s.first_request_at)}</td>
        <td title={s.last_request_at}>{time(s.last_request_at)}</td>
        <td class="num">{count(s.requests)}</td>
        <td class="num">{count(s.errors)}</td>
        <td class="num">{count(s.prompt_tokens)}</td>
        <td class="num">{count(s.completion_tokens)}</td>
        <td
          class="num"
          title={`${count(s.cached_tokens)} of ${count(s.prompt_tokens)} prompt tokens from the cache`}
        >
          {percent(s.cached_tokens, s.prompt_tokens)}
        </td>
        <td class="num" data-cell="cost">
          <SessionCost usd={s.cost_usd} unpriced={s.unpriced_requests} />
        </td>
        <td class="num" title={`${count(s.prompt_tokens_saved)} prompt tokens saved by compression`}>
          <SessionSaved usd={s.compression_saved_usd} tokens={s.prompt_tokens_saved} />
        </td>
        <td class="num">{count(s.svc_tool_runs)}</td>
        <td>{s.models.length === 0 ? "–" : s.models.join(", ")}</td>
      </tr>
    ))}
  </DataTable>
)
