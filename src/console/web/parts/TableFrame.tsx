/**
 * The frame a table scrolls in when it is wider than the screen. It can take focus, so the keyboard
 * can scroll it too, and it is a named region for screen readers.
 */
import type { ComponentChildren } from "preact"

export const TableFrame = (props: { readonly label: string; readonly children: ComponentChildren }) => (
  <div class="table-wrap" tabIndex={0} role="region" aria-label={props.label}>
    {props.children}
  </div>
)
