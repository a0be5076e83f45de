/**
 * Which shared tools a key may use: every tool the org activates (`null`), or only those ticked. The
 * ticked list may name a tool the org has not activated yet; the key gets it once the org does.
 */
import type { SvcTool } from "../Api.ts"

export const ToolChoice = (props: {
  /** Unique within the page: it names the radio group. */
  readonly name: string
  readonly tools: ReadonlyArray<SvcTool>
  readonly value: ReadonlyArray<string> | null
  readonly onChange: (value: ReadonlyArray<string> | null) => void
}) => {
  const only = props.value !== null
  const chosen = new Set(props.value ?? [])
  const toggle = (id: string, on: boolean) =>
    props.onChange(props.tools.map((tool) => tool.id).filter((tool) => (tool === id ? on : chosen.has(tool))))
  return (
    <fieldset class="tool-choice">
      <legend>Shared tools this key may use</legend>
      <label class="check">
        <input type="radio" name={props.name} checked={!only} onChange={() => props.onChange(null)} />
        Every shared tool activated for the organization
      </label>
      <label class="check">
        <input type="radio" name={props.name} checked={only} onChange={() => props.onChange([...chosen])} />
        Only these:
      </label>
      <div class="tool-list">
        {props.tools.length === 0 ? <span class="muted">No shared tools are installed.</span> : null}
        {props.tools.map((tool) => (
          <label class="check" key={tool.id}>
            <input
              type="checkbox"
              disabled={!only}
              checked={chosen.has(tool.id)}
              onChange={(event) => toggle(tool.id, event.currentTarget.checked)}
            />
            <code>{tool.id}</code>
          </label>
        ))}
      </div>
    </fieldset>
  )
}

export const toolsText = (ids: ReadonlyArray<string> | null): string =>
  ids === null ? "all activated" : ids.length === 0 ? "none" : ids.join(", ")
