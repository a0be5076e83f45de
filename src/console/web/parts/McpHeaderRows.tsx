/**
 * The headers the gateway is to send an MCP server (a token, most often): name and value rows, as
 * many as needed, the value typed like a password. The gateway stores the values sealed and never shows them
 * again, so nothing here ever reads one back: the rows only hold what was typed until the form is sent.
 */
import { useEffect, useRef } from "preact/hooks"

export interface HeaderRow {
  /** Stable across edits and removals, for the inputs' ids and Preact's keys. */
  readonly key: number
  readonly name: string
  readonly value: string
}

let nextKey = 0
export const newHeaderRow = (): HeaderRow => ({ key: nextKey++, name: "", value: "" })

/** An HTTP header's name: a token of RFC 9110. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

/** Why the rows cannot be sent, or null; rows without a name are left out. */
export const headersProblem = (rows: ReadonlyArray<HeaderRow>): string | null => {
  const seen = new Set<string>()
  for (const row of rows) {
    const name = row.name.trim()
    if (name === "") {
      if (row.value !== "") return "A header has a value but no name: name it, or remove the row."
      continue
    }
    if (!TOKEN.test(name)) return `'${name}' is not a valid header name (letters, digits and - are).`
    if (seen.has(name.toLowerCase())) return `The header '${name}' is given twice.`
    seen.add(name.toLowerCase())
  }
  return null
}

/** The rows with a name, as the API takes them. */
export const headersOf = (rows: ReadonlyArray<HeaderRow>): Record<string, string> =>
  Object.fromEntries(rows.filter((row) => row.name.trim() !== "").map((row) => [row.name.trim(), row.value]))

export const HeaderRows = (props: {
  readonly rows: ReadonlyArray<HeaderRow>
  readonly onChange: (rows: ReadonlyArray<HeaderRow>) => void
}) => {
  const { rows } = props
  const set = (key: number, change: Partial<Omit<HeaderRow, "key">>) =>
    props.onChange(rows.map((row) => (row.key === key ? { ...row, ...change } : row)))
  // a row added by the button: its name takes focus, so the keyboard goes on from there
  const added = useRef<number | null>(null)
  useEffect(() => {
    if (added.current === null) return
    document.getElementById(`mcp-header-${added.current}-name`)?.focus()
    added.current = null
  }, [rows.length])

  return (
    <fieldset class="mcp-headers">
      <legend>Headers (optional)</legend>
      <p class="hint" id="mcp-headers-hint">
        Sent with every request to the server, such as{" "}
        <code>Authorization</code>. The values are stored sealed and never shown again, here or anywhere.
      </p>
      {rows.map((row, index) => {
        const id = `mcp-header-${row.key}`
        const n = index + 1
        return (
          <div class="mcp-header-row" key={row.key}>
            <div>
              <label for={`${id}-name`}>Header {n} name</label>
              <input
                id={`${id}-name`}
                value={row.name}
                onInput={(event) => set(row.key, { name: event.currentTarget.value })}
                placeholder="Authorization"
                maxLength={200}
                autocomplete="off"
                spellcheck={false}
              />
            </div>
            <div>
              <label for={`${id}-value`}>Header {n} value</label>
              <input
                id={`${id}-value`}
                type="password"
                value={row.value}
                onInput={(event) => set(row.key, { value: event.currentTarget.value })}
                required={row.name.trim() !== ""}
                aria-describedby="mcp-headers-hint"
                autocomplete="new-password"
                spellcheck={false}
              />
            </div>
            <button
              type="button"
              class="link danger"
              onClick={() => props.onChange(rows.filter((r) => r.key !== row.key))}
            >
              Remove<span class="visually-hidden">header {n}</span>
            </button>
          </div>
        )
      })}
      <button
        type="button"
        onClick={() => {
          const row = newHeaderRow()
          added.current = row.key
          props.onChange([...rows, row])
        }}
      >
        Add a header
      </button>
    </fieldset>
  )
}
