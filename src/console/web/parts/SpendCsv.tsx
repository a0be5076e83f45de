/**
 * The spend export as a CSV file, for the period on the page: one row per UTC day, or per day and key,
 * model or tag. The admin API wants the token in a header, so the page fetches the file and saves it
 * rather than linking to it.
 */
import { useState } from "preact/hooks"
import { callFile } from "../Api.ts"
import { Notice } from "./Notice.tsx"
import { lastDayOf, type Period } from "./Period.ts"
import { saveFile } from "./SaveFile.ts"
import { useAction } from "./useLoad.ts"

type CsvRows = "none" | "key" | "model" | "tag"
const ROWS: ReadonlyArray<readonly [CsvRows, string]> = [
  ["none", "per day"],
  ["key", "per day and key"],
  ["model", "per day and model"],
  ["tag", "per day and tag"]
]

/** `spend-org_1-2026-11-01-to-2026-11-30-by-model.csv`: what, whose and when, before it is opened. */
export const csvName = (orgId: string, period: Period, rows: CsvRows): string =>
  `spend-${orgId.replace(/[^\w-]/g, "_")}-${period.from}-to-${lastDayOf(period)}${
    rows === "none" ? "" : `-by-${rows}`
  }.csv`

export const SpendCsv = (props: { readonly orgId: string; readonly period: Period }) => {
  const [rows, setRows] = useState<CsvRows>("none")
  const [message, setMessage] = useState<{ readonly kind: "error" | "info"; readonly text: string } | null>(null)
  const { busy, run } = useAction()

  const download = async () => {
    const name = csvName(props.orgId, props.period, rows)
    const result = await run(() =>
      callFile("requests", "spendCsv", {
        params: { org_id: props.orgId },
        query: { group_by: rows, from: props.period.from, to: props.period.to }
      })
    )
    if (!result.ok) return setMessage({ kind: "error", text: `The export failed: ${result.error}` })
    saveFile(result.value, name)
    setMessage({ kind: "info", text: `Saved ${name}.` })
  }

  return (
    <div class="card export">
      <h2 id="export-title">Export</h2>
      <div class="inline-form">
        <label for="export-rows">CSV rows</label>
        <select
          id="export-rows"
          value={rows}
          onChange={(event) => setRows(event.currentTarget.value as CsvRows)}
        >
          {ROWS.map(([value, label]) => <option key={value} value={value}>{label}</option>)}
        </select>
        <button type="button" onClick={() => void download()} disabled={busy} aria-describedby="export-title">
          {busy ? "Downloading…" : "Download CSV"}
        </button>
      </div>
      <Notice message={message} onDismiss={() => setMessage(null)} />
    </div>
  )
}
