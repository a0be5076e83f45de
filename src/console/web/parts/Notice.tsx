/**
 * Messages about what just happened: errors in an alert (read out at once), other news in a polite
 * live region. Nothing on the page depends on them; they can be dismissed.
 */
import type { ComponentChildren } from "preact"

export interface Message {
  readonly kind: "error" | "info"
  readonly text: string
}

export const Notice = (props: { readonly message: Message | null; readonly onDismiss?: () => void }) => (
  <div class="notices" aria-live="polite">
    {props.message === null ? null : (
      <div class={`notice notice-${props.message.kind}`}>
        <p role={props.message.kind === "error" ? "alert" : "status"}>{props.message.text}</p>
        {props.onDismiss === undefined ?
          null :
          (
            <button type="button" class="link" onClick={props.onDismiss} aria-label="Dismiss message">
              ×
            </button>
          )}
      </div>
    )}
  </div>
)

export const Empty = (props: { readonly children: ComponentChildren }) => <p class="empty">{props.children}</p>
