/**
 * The audit log's filters (action, actor, time), as a form whose values live in the URL: applying it
 * navigates, so the back button, a reload and a shared link keep them.
 */
import { useState } from "preact/hooks"
import type { AuditFilter } from "../Api.ts"
import { AUDIT_ACTIONS } from "./AuditChange.ts"
import { isoToLocal, localToIso } from "./Format.ts"

const NAMES = ["action", "actor", "from", "to"] as const

export const auditFilterOf = (params: URLSearchParams): AuditFilter => {
  const filter: Record<string, string> = {}
  for (const name of NAMES) {
    const value = params.get(name)
    if (value !== null && value !== "") filter[name] = value
  }
  return filter
}

export const AuditFilters = (props: {
  readonly params: URLSearchParams
  /** The actors of the records on the page, offered as the actor's suggestions. */
  readonly actors: ReadonlyArray<string>
  readonly onApply: (params: URLSearchParams) => void
}) => {
  const initial = auditFilterOf(props.params)
  const [values, setValues] = useState<Record<(typeof NAMES)[number], string>>({
    action: initial.action ?? "",
    actor: initial.actor ?? "",
    from: isoToLocal(initial.from ?? ""),
    to: isoToLocal(initial.to ?? "")
  })
  const set = (name: (typeof NAMES)[number]) => (event: { currentTarget: { value: string } }) =>
    setValues({ ...values, [name]: event.currentTarget.value })

  const apply = (event: Event) => {
    event.preventDefault()
    const params = new URLSearchParams(props.params)
    for (const name of NAMES) {
      const raw = values[name].trim()
      const value = name === "from" || name === "to" ? localToIso(raw) : raw
      if (value === "") params.delete(name)
      else params.set(name, value)
    }
    props.onApply(params)
  }

  const clear = () => {
    setValues({ action: "", actor: "", from: "", to: "" })
    const params = new URLSearchParams(props.params)
    for (const name of NAMES) params.delete(name)
    props.onApply(params)
  }

  // the choice keeps an action typed into the URL by hand
  const actions = values.action === "" || AUDIT_ACTIONS.includes(values.action)
    ? AUDIT_ACTIONS
    : [...AUDIT_ACTIONS, values.action]
  return (
    <form class="card filters" onSubmit={apply} aria-label="Filters">
      <div>
        <label for="audit-action">Action</label>
        <select id="audit-action" value={values.action} onChange={set("action")}>
          <option value="">any</option>
          {actions.map((action) => <option key={action} value={action}>{action}</option>)}
        </select>
      </div>
      <div>
        <label for="audit-actor">Actor</label>
        <input
          id="audit-actor"
          value={values.actor}
          onInput={set("actor")}
          list="audit-actors"
          placeholder="ana@example.com"
          aria-describedby="audit-actor-hint"
        />
        <datalist id="audit-actors">
          {["admin_token", "cli", ...props.actors].map((actor) => <option key={actor} value={actor} />)}
        </datalist>
      </div>
      <div>
        <label for="audit-from">From</label>
        <input id="audit-from" type="datetime-local" value={values.from} onInput={set("from")} />
      </div>
      <div>
        <label for="audit-to">Until</label>
        <input id="audit-to" type="datetime-local" value={values.to} onInput={set("to")} />
      </div>
      <p class="hint" id="audit-actor-hint">
        Actor: a person's email or user id, <code>admin_token</code> for the admin token, or <code>cli</code>{" "}
        for the CLI working on the store.
      </p>
      <div class="actions">
        <button type="submit" class="primary">Apply filters</button>
        <button type="button" onClick={clear}>Clear</button>
      </div>
    </form>
  )
}
