/**
 * One client session: who ran it and when, its sums (requests, errors, tokens and cache reads, cost,
 * what compression saved, shared tool runs), then its requests in the order they came, each with the
 * time since the one before (how long the agent worked between two calls) and a link to its detail.
 */
import { api, type ApiKey, type LoggedRequest, type Org, type SessionDetail } from "../Api.ts"
import { clientName } from "../parts/ClientName.ts"
import { DataTable, num, unseen } from "../parts/DataTable.tsx"
import { count, duration, ms, percent, time, timeToSecond } from "../parts/Format.ts"
import { microsOf } from "../parts/Money.ts"
import { Notice } from "../parts/Notice.tsx"
import { SessionCost, SessionSaved } from "../parts/SessionFigures.tsx"
import { StatusBadge } from "../parts/StatusBadge.tsx"
import { Usd } from "../parts/UsdFigure.tsx"
import { useLoad } from "../parts/useLoad.ts"
import { href } from "../Route.ts"

export const SessionTimeline = (props: { readonly org: Org; readonly sessionId: string; readonly back: string }) => {
  const orgId = props.org.id
  const session = useLoad(() => api.session(orgId, props.sessionId), [orgId, props.sessionId])
  const keys = useLoad(() => api.keys(orgId), [orgId])
  const s = session.data
  return (
    <section>
      <p>
        <a href={props.back}>← Back to the sessions</a>
      </p>
      <h1 tabIndex={-1}>
        Session <code>{props.sessionId}</code>
      </h1>
      {session.error === null ? null : <Notice message={{ kind: "error", text: session.error }} />}
      {s === undefined ? (session.loading ? <p aria-busy="true">Loading…</p> : null) : (
        <>
          <About session={s} keys={keys.data ?? []} />
          <Sums session={s} />
          <h2>Timeline</h2>
          <p class="hint">
            {s.timeline.length < s.requests
              ? `Its latest ${count(s.timeline.length)} of ${count(s.requests)} requests, oldest first. `
              : "Its requests, oldest first. "}
            <a href={href("requests", orgId, { params: new URLSearchParams({ session_id: s.session_id }) })}>
              All its requests in the log
            </a>
          </p>
          <Timeline orgId={orgId} session={s} />
        </>
      )}
    </section>
  )
}

const About = (props: { readonly session: SessionDetail; readonly keys: ReadonlyArray<ApiKey> }) => {
  const s = props.session
  const keyName = (id: string) => {
    const key = props.keys.find((k) => k.id === id)
    return key === undefined ? id : `${key.name} (${key.prefix}…)`
  }
  const span = new Date(s.last_request_at).getTime() - new Date(s.first_request_at).getTime()
  return (
    <dl class="detail">
      <dt>Client</dt>
      <dd>
        {clientName(s.client)}
        {s.client === null ? null : <span class="muted">{` (${s.client})`}</span>}
      </dd>
      <dt>Developer</dt>
      <dd>{s.developer ?? "–"}</dd>
      <dt>First request</dt>
      <dd title={s.first_request_at}>{time(s.first_request_at)}</dd>
      <dt>Last request</dt>
      <dd title={s.last_request_at}>
        {time(s.last_request_at)} <span class="muted">({duration(span)} after the first)</span>
      </dd>
      <dt>Models</dt>
      <dd>{s.models.length === 0 ? "–" : s.models.join(", ")}</dd>
      <dt>Keys</dt>
      <dd>{s.key_ids.length === 0 ? "–" : s.key_ids.map(keyName).join(", ")}</dd>
    </dl>
  )
}

const Sums = (props: { readonly session: SessionDetail }) => {
  const s = props.session
  return (
    <>
      <h2 id="session-sums">Sums</h2>
      <ul class="totals" aria-labelledby="session-sums">
        <li data-figure="requests">
          <span class="figure">{count(s.requests)}</span> requests
        </li>
        <li data-figure="errors">
          <span class="figure">{count(s.errors)}</span> errors <span class="muted">(status 400 and up)</span>
        </li>
        <li data-figure="cost">
          <span class="figure">
            <SessionCost usd={s.cost_usd} unpriced={s.unpriced_requests} />
          </span>{" "}
          spent
        </li>
        <li data-figure="tokens">
          <span class="figure">{count(s.prompt_tokens)}</span> tokens in, {count(s.completion_tokens)} out
        </li>
        <li data-figure="cache">
          <span class="figure">{percent(s.cached_tokens, s.prompt_tokens)}</span>{" "}
          of the prompt tokens read from the provider's cache <span class="muted">({count(s.cached_tokens)})</span>
        </li>
        <li data-figure="saved">
          <span class="figure">
            <SessionSaved usd={s.compression_saved_usd} tokens={s.prompt_tokens_saved} />
          </span>{" "}
          saved by compression, net of prompt caching{" "}
          <span class="muted">({count(s.prompt_tokens_saved)} prompt tokens)</span>
        </li>
        <li data-figure="tool-runs">
          <span class="figure">{count(s.svc_tool_runs)}</span> shared tool runs
        </li>
      </ul>
    </>
  )
}

/**
 * What one request cost. No cost is unknown only for an answered completion of a model without a
 * price (the sums count those as unpriced); a failure billed nothing and a token count costs nothing.
 */
const Cost = (props: { readonly request: LoggedRequest }) => {
  const r = props.request
  if (r.cost_usd !== null) return <Usd micros={microsOf(r.cost_usd)} />
  return r.status < 400 && r.kind === "completion" ? <span class="muted">unknown</span> : <span class="muted">–</span>
}

const Timeline = (props: { readonly orgId: string; readonly session: SessionDetail }) => {
  const rows = props.session.timeline
  const detailOf = (id: string) =>
    href("requests", props.orgId, {
      requestId: id,
      params: new URLSearchParams({ session_id: props.session.session_id })
    })
  return (
    <DataTable
      label="Timeline"
      class="timeline"
      caption="The session's requests, oldest first"
      columns={[
        num("#"),
        "Time",
        num("After"),
        "Model",
        "Status",
        num("Tokens in"),
        num("Tokens out"),
        num("Cached"),
        num("Cost"),
        num("Latency"),
        unseen("Detail")
      ]}
    >
      {rows.map((r, i) => {
        const previous = rows[i - 1]
        const gap = previous === undefined
          ? null
          : new Date(r.created_at).getTime() - new Date(previous.created_at).getTime()
        return (
          <tr key={r.id} data-request-id={r.id}>
            <td class="num">{i + 1}</td>
            <td title={r.created_at}>{timeToSecond(r.created_at)}</td>
            <td class="num">{gap === null ? <span class="muted">start</span> : `+${duration(gap)}`}</td>
            <td>{r.requested_model ?? r.model ?? "–"}</td>
            <td>
              <StatusBadge status={r.status} />
            </td>
            <td class="num">{count(r.prompt_tokens)}</td>
            <td class="num">{count(r.completion_tokens)}</td>
            <td class="num">{count(r.cached_tokens)}</td>
            <td class="num">
              <Cost request={r} />
            </td>
            <td class="num">{ms(r.latency_ms)}</td>
            <td>
              <a href={detailOf(r.id)}>
                Detail<span class="visually-hidden">of {r.id}</span>
              </a>
            </td>
          </tr>
        )
      })}
    </DataTable>
  )
}
