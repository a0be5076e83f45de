/**
 * The request log's filters, as a form whose values live in the URL: applying it navigates, so the
 * back button, a reload and a shared link all keep them. Requests and analytics share it.
 */
import { useState } from "preact/hooks"
import type { ApiKey, LogFilter } from "../Api.ts"
import { isoToLocal, localToIso } from "./Format.ts"

export const FILTER_NAMES = ["tag", "model", "key_id", "session_id", "status", "from", "to"] as const

export const filterOf = (params: URLSearchParams): LogFilter => {
  const filter: Record<string, string> = {}
  for (const name of FILTER_NAMES) {
    const value = params.get(name)
    if (value !== null && value !== "") filter[name] = value
  }
  return filter
}

const STATUSES: ReadonlyArray<readonly [string, string]> = [
  ["", "any"],
  ["error", "errors (400 and up)"],
  ["2xx", "2xx"],
  ["4xx", "4xx"],
  ["5xx", "5xx"],
  ["401", "401"],
  ["429", "429"]
]

export const LogFilters = (props: {
  readonly params: URLSearchParams
  readonly keys: ReadonlyArray<ApiKey>
  /** Filters the page does not offer (analytics has no status filter). */
  readonly without?: ReadonlyArray<(typeof FILTER_NAMES)[number]>
  readonly onApply: (params: URLSearchParams) => void
}) => {
  const initial = filterOf(props.params)
  const [values, setValues] = useState<Record<string, string>>({
    tag: initial.tag ?? "",
    model: initial.model ?? "",
    key_id: initial.key_id ?? "",
    session_id: initial.session_id ?? "",
    status: initial.status ?? "",
    from: isoToLocal(initial.from ?? ""),
    to: isoToLocal(initial.to ?? "")
  })
  const set = (name: string) => (event: { currentTarget: { value: string } }) =>
    setValues({ ...values, [name]: event.currentTarget.value })
  const shown = (name: (typeof FILTER_NAMES)[number]) => !(props.without ?? []).includes(name)

  const apply = (event: Event) => {
    event.preventDefault()
    const params = new URLSearchParams(props.params)
    for (const name of FILTER_NAMES) {
      const raw = (values[name] ?? "").trim()
      const value = name === "from" || name === "to" ? localToIso(raw) : raw
      if (value === "" || !shown(name)) params.delete(name)
      else params.set(name, value)
    }
    props.onApply(params)
  }

  const clear = () => {
    setValues({ tag: "", model: "", key_id: "", session_id: "", status: "", from: "", to: "" })
    const params = new URLSearchParams(props.params)
    for (const name of FILTER_NAMES) params.delete(name)
    props.onApply(params)
  }

  // the status choice keeps an exact code typed into the URL by hand
  const statuses = STATUSES.some(([value]) => value === values.status)
    ? STATUSES
    : [...STATUSES, [values.status ?? "", values.status ?? ""] as const]
  return (
    <form class="card filters" onSubmit={apply} aria-label="Filters">
      <div>
        <label for="filter-tag">Tag</label>
        <input id="filter-tag" value={values.tag} onInput={set("tag")} placeholder="prod, team-a" />
      </div>
      <div>
        <label for="filter-model">Model</label>
        <input id="filter-model" value={values.model} onInput={set("model")} placeholder="openai/gpt-4o" />
      </div>
      <div>
        <label for="filter-key">Key</label>
        <select id="filter-key" value={values.key_id} onChange={set("key_id")}>
          <option value="">any</option>
          {props.keys.map((key) => <option key={key.id} value={key.id}>{key.name} ({key.prefix}…)</option>)}
        </select>
      </div>
      <div>
        <label for="filter-session">Session</label>
        <input
          id="filter-session"
          value={values.session_id}
          onInput={set("session_id")}
          placeholder="Claude Code session id"
        />
      </div>
      {shown("status") ?
        (
          <div>
            <label for="filter-status">Status</label>
            <select id="filter-status" value={values.status} onChange={set("status")}>
              {statuses.map(([value, label]) => <option key={value} value={value}>{label}</option>)}
            </select>
          </div>
        ) :
        null}
      <div>
        <label for="filter-from">From</label>
        <input id="filter-from" type="datetime-local" value={values.from} onInput={set("from")} />
      </div>
      <div>
        <label for="filter-to">Until</label>
        <input id="filter-to" type="datetime-local" value={values.to} onInput={set("to")} />
      </div>
      <div class="actions">
        <button type="submit" class="primary">Apply filters</button>
        <button type="button" onClick={clear}>Clear</button>
      </div>
    </form>
  )
}
