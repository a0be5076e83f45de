/**
 * A key's or an organization's rate limits and budgets (tokens and dollars): a summary that opens into a small form
 * (an empty box: no limit of that kind). Saving sends only the kinds, `null` for an emptied one.
 */
import { useRef, useState } from "preact/hooks"
import { LIMIT_FIELDS, type Limits, limitsText } from "../Api.ts"

export const LimitsEditor = (props: {
  /** What the limits belong to, for the labels: "acme" or "key ci". */
  readonly owner: string
  readonly id: string
  readonly limits: Limits
  readonly busy: boolean
  readonly save: (limits: Limits) => Promise<void>
}) => {
  const [draft, setDraft] = useState<Record<string, string>>({})
  const details = useRef<HTMLDetailsElement>(null)
  const value = (field: keyof Limits) =>
    draft[field] ?? (props.limits[field] === null ? "" : String(props.limits[field]))
  const submit = async (event: Event) => {
    event.preventDefault()
    const next = Object.fromEntries(LIMIT_FIELDS.map(({ field }) => {
      const text = value(field).trim()
      return [field, text === "" ? null : Number(text)]
    })) as unknown as Limits
    await props.save(next)
    setDraft({})
    // saved: back to the summary, which now shows the new limits
    if (details.current !== null) details.current.open = false
  }
  return (
    <details class="limits" ref={details}>
      <summary>
        {limitsText(props.limits)}
        <span class="visually-hidden">(limits of {props.owner}; open to edit)</span>
      </summary>
      <form onSubmit={submit}>
        {LIMIT_FIELDS.map(({ dollars, field, label }) => (
          <label key={field} for={`${props.id}-${field}`}>
            {label}
            <input
              id={`${props.id}-${field}`}
              type="number"
              min={dollars ? 0.000001 : 1}
              step={dollars ? "any" : 1}
              inputMode={dollars ? "decimal" : "numeric"}
              placeholder="no limit"
              value={value(field)}
              onInput={(event) => setDraft({ ...draft, [field]: event.currentTarget.value })}
            />
          </label>
        ))}
        <button type="submit" class="primary" disabled={props.busy}>Save limits</button>
      </form>
    </details>
  )
}
