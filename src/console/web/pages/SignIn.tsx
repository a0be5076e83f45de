/**
 * Sign-in: single sign-on with the organization's identity provider when the gateway offers it (a plain
 * link: the provider's pages and the way back are navigations, not calls), or the admin token or a
 * person's personal access token, checked against the API (`/me`) before it is kept for the tab.
 */
import { useState } from "preact/hooks"
import { ApiError, call } from "../Api.ts"
import { Notice } from "../parts/Notice.tsx"
import { tokenName } from "../Session.ts"

/** Why the API refused a token: its own words for a personal token (expired, revoked, user disabled). */
const refused = (token: string, cause: ApiError): string =>
  tokenName(token) === "admin token" ? "The gateway did not accept this admin token." : cause.message

export const SignIn = (props: {
  readonly reason: string | null
  /** Why the last single sign-on was refused. */
  readonly error: string | null
  /** Whether the gateway offers single sign-on. */
  readonly sso: boolean
  readonly onSignedIn: (token: string) => void
}) => {
  const [token, setToken] = useState("")
  const [error, setError] = useState<string | null>(props.error)
  const [busy, setBusy] = useState(false)

  const submit = async (event: Event) => {
    event.preventDefault()
    const value = token.trim()
    if (value === "") {
      setError("Enter the admin token or your personal access token.")
      return
    }
    setBusy(true)
    try {
      await call("users", "me", {}, value)
      props.onSignedIn(value)
    } catch (cause) {
      setError(
        cause instanceof ApiError && cause.status === 401
          ? refused(value, cause)
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
      <Notice
        message={error !== null
          ? { kind: "error", text: error }
          : reason !== null
          ? { kind: "info", text: reason }
          : null}
      />
      {props.sso
        ? (
          <div class="card">
            <a class="button primary" href="/console/sso/login">Sign in with single sign-on</a>
            <p class="hint">With your organization's account; the gateway gives you the roles your groups carry.</p>
          </div>
        )
        : null}
      <form onSubmit={submit} class="card">
        <label for="admin-token">Admin token or personal access token</label>
        <input
          id="admin-token"
          type="password"
          autocomplete="current-password"
          aria-describedby="admin-token-hint"
          value={token}
          onInput={(event) => setToken(event.currentTarget.value)}
          required
        />
        <p class="hint" id="admin-token-hint">
          Your personal access token (<code>pat-svc-…</code>, made for you by an owner or by yourself), which lets you
          do what your roles allow; or the gateway's <code>GATEWAY_ADMIN_TOKEN</code>{" "}
          (or the token it printed on its first start), which may do everything. It is kept in this tab only, until you
          sign out or close the tab.
        </p>
        <button type="submit" class="primary" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </main>
  )
}
