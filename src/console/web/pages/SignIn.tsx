/** Sign-in: the admin token is checked against the API before it is kept for the tab. */
import { useState } from "preact/hooks"
import { ApiError, call } from "../Api.ts"
import { Notice } from "../parts/Notice.tsx"

export const SignIn = (props: { readonly reason: string | null; readonly onSignedIn: (token: string) => void }) => {
  const [token, setToken] = useState("")
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)

  const submit = async (event: Event) => {
    event.preventDefault()
    const value = token.trim()
    if (value === "") {
      setError("Enter the admin token.")
      return
    }
    setBusy(true)
    try {
      await call("orgs", "list", {}, value)
      props.onSignedIn(value)
    } catch (cause) {
      setError(
        cause instanceof ApiError && cause.status === 401
          ? "The gateway did not accept this admin token."
          : cause instanceof Error
          ? cause.message
          : String(cause)
      )
    } finally {
      setBusy(false)
    }
  }

  const reason = props.reason === null ? null : `Signed out: ${props.reason}`
  return (
    <main class="sign-in" id="main">
      <h1>svc-gateway console</h1>
      <form onSubmit={submit} class="card">
        <Notice
          message={error !== null
            ? { kind: "error", text: error }
            : reason !== null
            ? { kind: "info", text: reason }
            : null}
        />
        <label for="admin-token">Admin token</label>
        <input
          id="admin-token"
          type="password"
          autocomplete="current-password"
          value={token}
          onInput={(event) => setToken(event.currentTarget.value)}
          required
        />
        <p class="hint">
          The gateway's{" "}
          <code>GATEWAY_ADMIN_TOKEN</code>, or the token it printed on its first start. It is kept in this tab only,
          until you sign out or close the tab.
        </p>
        <button type="submit" class="primary" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </main>
  )
}
