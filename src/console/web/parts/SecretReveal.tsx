/**
 * A new secret (an API key, a personal access token), shown once: the API returns it in the create
 * response only and keeps a hash. It lives in this component's state until dismissed, and is never
 * stored anywhere else.
 */
import { useEffect, useRef, useState } from "preact/hooks"

/** The clipboard API needs a secure context (https or localhost); elsewhere, copy the selected text. */
const copy = async (input: HTMLInputElement, text: string): Promise<boolean> => {
  try {
    await navigator.clipboard.writeText(text)
    return true
  } catch {
    input.select()
    return document.execCommand("copy")
  }
}

export const SecretReveal = (props: {
  /** What the secret is, in a sentence: `key`, `personal access token`. */
  readonly noun: string
  /** The secret's box's accessible name: `The new API key`. */
  readonly label: string
  readonly name: string
  readonly secret: string
  readonly onDone: () => void
}) => {
  const { noun } = props
  const [copied, setCopied] = useState<boolean | null>(null)
  const input = useRef<HTMLInputElement>(null)
  const panel = useRef<HTMLElement>(null)
  useEffect(() => panel.current?.focus(), [])

  return (
    <section class="secret" ref={panel} tabIndex={-1} aria-labelledby="secret-title">
      <h2 id="secret-title">New {noun} '{props.name}': copy it now</h2>
      <p class="warning">
        <strong>This is the only time this {noun} is shown.</strong>{" "}
        svc-gateway keeps only a hash of it. Store it somewhere safe now; if it is lost, revoke it and create another.
      </p>
      <div class="secret-row">
        <input
          ref={input}
          id="new-key-secret"
          readOnly
          value={props.secret}
          aria-label={props.label}
          spellcheck={false}
          autocomplete="off"
          onFocus={(event) => event.currentTarget.select()}
        />
        <button
          type="button"
          class="primary"
          onClick={async () => setCopied(input.current !== null && await copy(input.current, props.secret))}
        >
          Copy
        </button>
      </div>
      <p role="status" class="hint">
        {copied === null
          ? ""
          : copied
          ? "Copied to the clipboard."
          : `Copying failed: select the ${noun} and copy it by hand.`}
      </p>
      <button type="button" onClick={props.onDone}>I have copied the {noun}</button>
    </section>
  )
}
