/**
 * Analytics of an organization's requests: totals, requests over time, and figures per tag, model, key
 * or client session (requests, errors, tokens, p50/p95 latency), all under the request log's filters.
 */
import { type AnalyticsGroup, api, type Org } from "../Api.ts"
import { type Bucket, Chart } from "../parts/Chart.tsx"
import { DataTable, num } from "../parts/DataTable.tsx"
import { count, ms, percent } from "../parts/Format.ts"
import { filterOf, LogFilters } from "../parts/LogFilters.tsx"
import { Empty, Notice } from "../parts/Notice.tsx"
import { useLoad } from "../parts/useLoad.ts"
import { href, navigate, type Route } from "../Route.ts"

type Grouping = "tag" | "model" | "key" | "session"
const GROUPINGS: ReadonlyArray<readonly [Grouping, string]> = [["model", "Model"], ["tag", "Tag"], ["key", "Key"], [
  "session",
  "Session"
]]
/** What a group of no value stands for. */
const NO_GROUP: Record<Grouping, string> = {
  tag: "(untagged)",
  model: "(none)",
  key: "(no key)",
  session: "(no session)"
}

/** Hours when the requests span three days or less, otherwise days: enough bars to read either way. */
const overTime = async (orgId: string, filter: ReturnType<typeof filterOf>) => {
  const days = await api.analytics(orgId, "day", filter)
  if (days.data.length > 3) return { bucket: "day" as Bucket, groups: days.data }
  return { bucket: "hour" as Bucket, groups: (await api.analytics(orgId, "hour", filter)).data }
}

export const AnalyticsPage = (props: { readonly org: Org; readonly route: Route }) => {
  const orgId = props.org.id
  const params = props.route.params
  const query = params.toString()
  const groupBy: Grouping = GROUPINGS.find(([g]) => g === params.get("group_by"))?.[0] ?? "model"
  const filter = filterOf(params)
  const keys = useLoad(() => api.keys(orgId), [orgId])
  const data = useLoad(
    () =>
      Promise.all([
        api.analytics(orgId, "none", filter),
        overTime(orgId, filter),
        api.analytics(orgId, groupBy, filter)
      ]),
    [orgId, query]
  )
  const [totals, time, grouped] = data.data ?? []
  const total: AnalyticsGroup = totals?.data[0] ??
    {
      group: null,
      requests: 0,
      errors: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      cached_tokens: 0,
      reasoning_tokens: 0,
      total_tokens: 0,
      prompt_tokens_saved: 0,
      prompt_tokens_saved_net: 0,
      shadow_tokens_saved_safe: 0,
      shadow_tokens_saved_aggressive: 0,
      cost_usd: 0,
      unpriced_requests: 0,
      compression_saved_usd: 0,
      p50_latency_ms: 0,
      p95_latency_ms: 0
    }
  const keyName = (id: string | null) => {
    const key = (keys.data ?? []).find((k) => k.id === id)
    return key === undefined ? id : `${key.name} (${key.prefix}…)`
  }
  const groupName = (group: string | null) =>
    group === null ? NO_GROUP[groupBy] : groupBy === "key" ? keyName(group) : group
  const withGroup = (g: Grouping) => {
    const next = new URLSearchParams(params)
    next.set("group_by", g)
    return next
  }

  return (
    <section>
      <h1 tabIndex={-1}>
        Analytics <span class="sub">of {props.org.name}</span>
      </h1>
      <LogFilters
        key={query}
        params={params}
        keys={keys.data ?? []}
        without={["status"]}
        onApply={(next) => navigate(href("analytics", orgId, { params: next }))}
      />
      {data.error === null ? null : <Notice message={{ kind: "error", text: data.error }} />}
      {data.data === undefined && data.loading ? <p aria-busy="true">Loading…</p> : null}

      <h2 class="visually-hidden">Totals</h2>
      <ul class="totals" aria-busy={data.loading}>
        <li>
          <span class="figure">{count(total.requests)}</span> requests
        </li>
        <li>
          <span class="figure">{count(total.errors)}</span> errors ({percent(total.errors, total.requests)})
        </li>
        <li>
          <span class="figure">${total.cost_usd.toFixed(2)}</span> spent
          {total.unpriced_requests === 0 ?
            null :
            <span class="muted">({count(total.unpriced_requests)} requests of models without a price not counted)
            </span>}
        </li>
        <li>
          <span class="figure">{count(total.total_tokens)}</span> tokens
          <span class="muted">({count(total.prompt_tokens)} prompt, {count(total.completion_tokens)} completion)</span>
        </li>
        <li>
          <span class="figure">{count(total.prompt_tokens_saved)}</span> prompt tokens saved by compression
          <span class="muted">
            ({count(total.prompt_tokens_saved_net)} net of cache reads; ${total.compression_saved_usd.toFixed(2)}{" "}
            saved at the models' prices, net of prompt caching)
          </span>
        </li>
        {total.shadow_tokens_saved_safe + total.shadow_tokens_saved_aggressive === 0 ? null : (
          <li>
            <span class="figure">{count(total.shadow_tokens_saved_safe)}</span> would be saved at safe
            <span class="muted">
              ({count(total.shadow_tokens_saved_aggressive)} at aggressive), on requests run at shadow
            </span>
          </li>
        )}
        <li>
          <span class="figure">{total.requests === 0 ? "–" : ms(total.p50_latency_ms)}</span> p50 latency
        </li>
        <li>
          <span class="figure">{total.requests === 0 ? "–" : ms(total.p95_latency_ms)}</span> p95 latency
        </li>
      </ul>

      <h2>Over time</h2>
      {time === undefined ? null : <Chart groups={time.groups} bucket={time.bucket} />}

      <h2 id="grouped-title">By {groupBy}</h2>
      <div class="segmented" role="group" aria-labelledby="grouped-title">
        {GROUPINGS.map(([g, text]) => (
          <a
            key={g}
            href={href("analytics", orgId, { params: withGroup(g) })}
            aria-current={g === groupBy ? "true" : undefined}
          >
            {text}
          </a>
        ))}
      </div>
      {grouped === undefined ?
        null :
        grouped.data.length === 0 ?
        <Empty>No requests match these filters.</Empty> :
        (
          <DataTable
            label="Figures by group"
            columns={[
              GROUPINGS.find(([g]) => g === groupBy)?.[1] ?? "",
              num("Requests"),
              num("Errors"),
              num("Prompt tokens"),
              num("Completion tokens"),
              num("Total tokens"),
              num("p50"),
              num("p95")
            ]}
            after={grouped.has_more
              ? <p class="hint">Only the first 1,000 groups are shown: narrow the filters to see the rest.</p>
              : null}
          >
            {grouped.data.map((g) => (
              <tr key={g.group ?? ""}>
                <td>{groupName(g.group)}</td>
                <td class="num">{count(g.requests)}</td>
                <td class="num">{count(g.errors)}</td>
                <td class="num">{count(g.prompt_tokens)}</td>
                <td class="num">{count(g.completion_tokens)}</td>
                <td class="num">{count(g.total_tokens)}</td>
                <td class="num">{ms(g.p50_latency_ms)}</td>
                <td class="num">{ms(g.p95_latency_ms)}</td>
              </tr>
            ))}
          </DataTable>
        )}
    </section>
  )
}
