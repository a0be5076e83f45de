/**
 * A table of rows under one row of column headings, in a frame that scrolls it when it is wider than
 * the screen. The frame can take focus, so the keyboard can scroll it too, and it is a named region for
 * screen readers. Headings are data: a column of figures is right-aligned (`num`), and a column of
 * buttons or links has a heading only screen readers read (`unseen`).
 */
import type { ComponentChildren } from "preact"

type Heading = { readonly text: string; readonly num?: true; readonly unseen?: true }

/** A column of figures, right-aligned in tabular digits. */
export const num = (text: string): Heading => ({ text, num: true })

/** A column whose heading only screen readers read (its cells are buttons or links). */
export const unseen = (text: string): Heading => ({ text, unseen: true })

export const DataTable = (props: {
  /** The frame's name as a region. */
  readonly label: string
  /** Read by screen readers before the table. */
  readonly caption?: string
  readonly class?: string
  /** The headings left to right; `false` leaves a column out. */
  readonly columns: ReadonlyArray<string | Heading | false>
  /** The body's rows. */
  readonly children: ComponentChildren
  /** Under the table, inside its frame: a note on what the rows leave out. */
  readonly after?: ComponentChildren
}) => (
  <div class="table-wrap" tabIndex={0} role="region" aria-label={props.label}>
    <table class={props.class}>
      {props.caption === undefined ? null : <caption class="visually-hidden">{props.caption}</caption>}
      <thead>
        <tr>
          {props.columns.map((column, i) => {
            if (column === false) return null
            const heading: Heading = typeof column === "string" ? { text: column } : column
            return (
              <th key={i} scope="col" class={heading.num === true ? "num" : undefined}>
                {heading.unseen === true ? <span class="visually-hidden">{heading.text}</span> : heading.text}
              </th>
            )
          })}
        </tr>
      </thead>
      <tbody>{props.children}</tbody>
    </table>
    {props.after}
  </div>
)
