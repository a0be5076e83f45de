/** One logged request: every field the log keeps, and the prompt and completion when the org stores them. */
import { api, type ApiKey, type LoggedRequest, type Org } from "../Api.ts"
import { count, ms, time } from "../parts/Format.ts"
import { Notice } from "../parts/Notice.tsx"
import { useLoad } from "../parts/useLoad.ts"
import { href } from "../Route.ts"

/** The stored prompt is the messages as JSON: indented, it reads as a conversation. */
const readable = (text: string): string => {
  try {
    return JSON.stringify(JSON.parse(text), null, 2)
  } catch {
    return text
  }
}

/** Dollars to six decimals, as the gateway stores them (whole micro-dollars). */
const usd = (value: number) => `$${value.toFixed(6)}`

/** What the request cost and its parts; unknown when a price was not. */
const costOf = (r: LoggedRequest): string =>
  r.cost_usd === null
    ? "unknown (no price for this model)"
    : `${usd(r.cost_usd)}: input ${usd(r.cost_input_usd ?? 0)}, cached input ${usd(r.cost_cached_input_usd ?? 0)}, ` +
      `cache writes ${usd(r.cost_cache_write_usd ?? 0)}, output ${usd(r.cost_output_usd ?? 0)}`

/** The level and what it saved; under shadow, what each level would have saved. */
const compressionOf = (r: LoggedRequest): string => {
  if (r.compression_level === null) return "–"
  if (r.compression_level === "shadow") {
    return `shadow: safe would have saved ${count(r.shadow_tokens_saved_safe ?? 0)} prompt tokens, aggressive ${
      count(r.shadow_tokens_saved_aggressive ?? 0)
    }`
  }
  if (r.prompt_tokens_saved === null) return r.compression_level
  const dollars = r.compression_saved_usd === null
    ? ""
    : `; ${r.compression_saved_usd < 0 ? "-" : ""}${usd(Math.abs(r.compression_saved_usd))} saved net of prompt caching`
  return `${r.compression_level}: ${count(r.prompt_tokens_saved)} prompt tokens saved (${
    count(r.prompt_tokens_saved_net ?? 0)
  } net of cache reads${dollars})`
}

export const RequestDetail = (props: {
  readonly org: Org
  readonly requestId: string
  readonly back: string
  readonly keys: ReadonlyArray<ApiKey>
}) => {
  const request = useLoad(() => api.request(props.org.id, props.requestId), [props.org.id, props.requestId])
  const r = request.data
  const key = props.keys.find((k) => k.id === r?.key_id)
  return (
    <section>
      <p>
        <a href={props.back}>← Back to the requests</a>
      </p>
      <h1 tabIndex={-1}>
        Request <code>{props.requestId}</code>
      </h1>
      {request.error === null ? null : <Notice message={{ kind: "error", text: request.error }} />}
      {r === undefined ? (request.loading ? <p aria-busy="true">Loading…</p> : null) : (
        <>
          <dl class="detail">
            <dt>Time</dt>
            <dd title={r.created_at}>
              {time(r.created_at)} <span class="muted">({r.created_at})</span>
            </dd>
            <dt>Kind</dt>
            <dd>{r.kind === "count_tokens" ? "token count (count_tokens)" : "completion"}</dd>
            <dt>Status</dt>
            <dd>{r.status}{r.error_code === null ? "" : ` (${r.error_code})`}</dd>
            <dt>Model requested</dt>
            <dd>{r.requested_model ?? "–"}</dd>
            <dt>Model answered</dt>
            <dd>{r.model ?? "–"}{r.provider === null ? "" : ` via ${r.provider}`}</dd>
            <dt>Key</dt>
            <dd>{key === undefined ? r.key_id ?? "–" : `${key.name} (${key.prefix}…)`}</dd>
            <dt>Session</dt>
            <dd>
              {r.session_id === null ? "–" : (
                <>
                  <code>{r.session_id}</code>{" "}
                  <a
                    href={href("requests", props.org.id, { params: new URLSearchParams({ session_id: r.session_id }) })}
                  >
                    All requests of this session
                  </a>
                </>
              )}
            </dd>
            <dt>Tags</dt>
            <dd>{r.tags.length === 0 ? "–" : r.tags.map((tag) => <span class="tag" key={tag}>{tag}</span>)}</dd>
            <dt>Streamed</dt>
            <dd>{r.stream ? "yes" : "no"}</dd>
            <dt>Tokens</dt>
            <dd>
              {count(r.prompt_tokens)} prompt ({count(r.cached_tokens)} cached) + {count(r.completion_tokens)}{" "}
              completion ({count(r.reasoning_tokens)} reasoning) = {count(r.total_tokens)}
            </dd>
            <dt>Cost</dt>
            <dd>{costOf(r)}</dd>
            <dt>Latency</dt>
            <dd>{ms(r.latency_ms)}{r.ttft_ms === null ? "" : `, first token after ${ms(r.ttft_ms)}`}</dd>
            <dt>Compression</dt>
            <dd>{compressionOf(r)}</dd>
            <dt>Upstream calls</dt>
            <dd>{r.attempts}</dd>
            <dt>Shared tools run</dt>
            <dd>{r.svc_tools.length === 0 ? "–" : r.svc_tools.join(", ")}</dd>
            <dt>Client</dt>
            <dd>{r.user_agent ?? "–"}</dd>
          </dl>
          <h2>Prompt</h2>
          {r.prompt_text === undefined
            ? <p class="muted">Not stored: the organization does not keep prompt and completion text.</p>
            : <pre class="content">{readable(r.prompt_text)}</pre>}
          <h2>Completion</h2>
          {r.completion_text === undefined
            ? <p class="muted">Not stored.</p>
            : <pre class="content">{r.completion_text}</pre>}
        </>
      )}
    </section>
  )
}
