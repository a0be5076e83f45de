/**
 * What commands print. Results go to stdout (text for people, or with `--json` exactly the admin API's
 * JSON); notes meant for people only go to stderr in JSON mode, so `... --json | jq` always parses.
 */
import { Console, Effect } from "effect"

/** A list as the admin API returns it. */
export const listBody = <A>(data: ReadonlyArray<A>) => ({ object: "list" as const, data })

export const printJson = (value: unknown): Effect.Effect<void> => Console.log(JSON.stringify(value, null, 2))

/** A timestamp without milliseconds (still ISO 8601 UTC); `none` when absent. */
export const time = (iso: string | null, none = "-"): string => iso === null ? none : iso.replace(/\.\d+Z$/, "Z")

/** Left-aligned columns separated by two spaces; the last column is not padded. */
export const table = (headers: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? "").length))
  )
  const line = (cells: ReadonlyArray<string>) =>
    cells.map((cell, column) => column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)).join("  ")
  return [line(headers), ...rows.map(line)].join("\n")
}

/** `label: value` lines, values aligned. */
export const fields = (entries: ReadonlyArray<readonly [string, string]>, indent = "  "): string => {
  const width = Math.max(...entries.map(([label]) => label.length)) + 1
  return entries.map(([label, value]) => `${indent}${`${label}:`.padEnd(width)}  ${value}`).join("\n")
}

/** Ids as a readable list; `none` when there are none. */
export const idList = (ids: ReadonlyArray<string>, none = "-"): string => ids.length === 0 ? none : ids.join(", ")

export const yesNo = (value: boolean): string => value ? "yes" : "no"
