/**
 * Audit records as a table, newest first: time, actor, action, target and a short summary of the
 * change; each row opens below itself into its detail (the values before and after as JSON, the
 * request's id, the caller's address and the personal token used).
 */
import { useState } from "preact/hooks"
import type { AuditRecord } from "../Api.ts"
import { actorText, changedFields, changeSummary, targetName } from "./AuditChange.ts"
import { DataTable, unseen } from "./DataTable.tsx"
import { timeToSecond } from "./Format.ts"

const COLUMNS = ["Time", "Actor", "Action", "Target", "Change", unseen("Detail")]

export const AuditTable = (props: { readonly caption: string; readonly records: ReadonlyArray<AuditRecord> }) => {
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set())
  const toggle = (id: string) => {
    const next = new Set(open)
    if (!next.delete(id)) next.add(id)
    setOpen(next)
  }
  return (
    <DataTable
      label="Audit log"
      class="audit"
      caption={props.caption}
      columns={COLUMNS}
    >
      {props.records.flatMap((record) => {
        const expanded = open.has(record.id)
        const detailId = `audit-detail-${record.id}`
        const name = targetName(record)
        const row = (
          <tr key={record.id} data-audit-id={record.id} data-action={record.action}>
            <td title={record.created_at}>{timeToSecond(record.created_at)}</td>
            <td data-cell="actor">{actorText(record)}</td>
            <td>
              <code>{record.action}</code>
            </td>
            <td>
              {record.target.kind}
              {name === undefined ? null : ` '${name}'`}
              {record.target.id === null ? null : (
                <div class="muted">
                  <code>{record.target.id}</code>
                </div>
              )}
            </td>
            <td class="wrap" data-cell="change">{changeSummary(record)}</td>
            <td>
              <button
                type="button"
                class="link"
                aria-expanded={expanded}
                aria-controls={expanded ? detailId : undefined}
                onClick={() => toggle(record.id)}
              >
                {expanded ? "Hide" : "Detail"}
                <span class="visually-hidden">of {record.action} at {timeToSecond(record.created_at)}</span>
              </button>
            </td>
          </tr>
        )
        return expanded ? [row, <AuditDetail key={detailId} id={detailId} record={record} />] : [row]
      })}
    </DataTable>
  )
}

const json = (value: unknown) => value === null ? "(none)" : JSON.stringify(value, null, 2)

const AuditDetail = (props: { readonly id: string; readonly record: AuditRecord }) => {
  const { record } = props
  const changes = changedFields(record.before, record.after)
  return (
    <tr id={props.id} class="audit-detail">
      <td colSpan={COLUMNS.length}>
        <div class="audit-detail-body">
          <dl class="detail">
            <dt>Record</dt>
            <dd>
              <code>{record.id}</code>
            </dd>
            <dt>At</dt>
            <dd>{record.created_at}</dd>
            {record.actor.token_id === null ? null : (
              <>
                <dt>Personal token</dt>
                <dd>
                  <code>{record.actor.token_id}</code>
                </dd>
              </>
            )}
            <dt>Request</dt>
            <dd>{record.request_id === null ? "–" : <code>{record.request_id}</code>}</dd>
            <dt>Address</dt>
            <dd>{record.address ?? "–"}</dd>
            <dt>Changed</dt>
            <dd>
              {changes.length === 0 ? "nothing" : (
                <ul class="changes">
                  {changes.map((change) => <li key={change}>{change}</li>)}
                </ul>
              )}
            </dd>
          </dl>
          <div class="before-after">
            <figure>
              <figcaption>Before</figcaption>
              <pre class="content" tabIndex={0} data-values="before">
              {json(record.before)}
              </pre>
            </figure>
            <figure>
              <figcaption>After</figcaption>
              <pre class="content" tabIndex={0} data-values="after">{json(record.after)}</pre>
            </figure>
          </div>
        </div>
      </td>
    </tr>
  )
}
