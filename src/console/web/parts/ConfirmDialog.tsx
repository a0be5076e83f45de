/**
 * A modal question before an action that cannot be undone. The browser's own `<dialog>` keeps focus
 * inside it, closes on Escape and gives focus back to the button that opened it.
 */
import type { ComponentChildren } from "preact"
import { useEffect, useRef } from "preact/hooks"

export const ConfirmDialog = (props: {
  readonly open: boolean
  readonly title: string
  readonly confirmLabel: string
  readonly busy: boolean
  readonly onConfirm: () => void
  readonly onCancel: () => void
  readonly children: ComponentChildren
}) => {
  const dialog = useRef<HTMLDialogElement>(null)
  useEffect(() => {
    const element = dialog.current
    if (element === null) return
    if (props.open && !element.open) element.showModal()
    if (!props.open && element.open) element.close()
  }, [props.open])

  return (
    <dialog ref={dialog} aria-labelledby="confirm-title" onClose={props.onCancel} class="dialog">
      <h2 id="confirm-title">{props.title}</h2>
      <div>{props.children}</div>
      <div class="actions">
        <button type="button" onClick={props.onCancel} disabled={props.busy} autofocus>
          Cancel
        </button>
        <button type="button" class="danger" onClick={props.onConfirm} disabled={props.busy}>
          {props.confirmLabel}
        </button>
      </div>
    </dialog>
  )
}
