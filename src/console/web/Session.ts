/**
 * How the console is signed in: with a token (the admin token or a person's personal access token),
 * kept in the tab's session storage, never put in a URL, never written to local storage or logged;
 * or by single sign-on, where the session lives in an HTTP-only cookie the page never sees and the page
 * holds only the session's CSRF token, in memory, to send with every call.
 */
import { CSRF_HEADER } from "../../kernel/ConsoleCookie.ts"

const KEY = "svc-gateway.admin-token"

/** A personal access token's scheme; anything else is taken for the admin token. */
const PERSONAL = "pat-svc-"

let csrfToken: string | null = null

export const session = {
  token: (): string | null => sessionStorage.getItem(KEY),
  signIn: (token: string) => sessionStorage.setItem(KEY, token),
  /** Signed in by single sign-on: the session's CSRF token, from `/console/sso/status`. */
  signInBySso: (csrf: string) => {
    csrfToken = csrf
  },
  bySso: (): boolean => csrfToken !== null,
  signOut: () => {
    sessionStorage.removeItem(KEY)
    csrfToken = null
  },
  /** What a call carries: the token as a bearer, or (single sign-on) the CSRF token beside the cookie. */
  headers: (token: string | null): Record<string, string> =>
    token !== null
      ? { authorization: `Bearer ${token}` }
      : csrfToken !== null
      ? { [CSRF_HEADER]: csrfToken }
      : { authorization: "Bearer " }
}

/** How a token is named to the person who typed it. */
export const tokenName = (token: string | null): string =>
  token?.startsWith(PERSONAL) === true ? "personal access token" : "admin token"

/** What the gateway says of single sign-on: whether it is offered, and this browser's session if any. */
export interface SsoStatus {
  readonly enabled: boolean
  readonly signed_in: boolean
  readonly csrf_token: string | null
}

const SIGNED_OUT: SsoStatus = { enabled: false, signed_in: false, csrf_token: null }

/** `/console/sso/status`; an older gateway without it, or one out of reach, offers no single sign-on. */
export const ssoStatus = async (): Promise<SsoStatus> => {
  try {
    const response = await fetch("/console/sso/status", { cache: "no-store" })
    return response.ok ? await response.json() as SsoStatus : SIGNED_OUT
  } catch {
    return SIGNED_OUT
  }
}

/** Ends the single sign-on session (the cookie is cleared by the answer); a token needs no call. */
export const ssoSignOut = async (): Promise<void> => {
  const headers = session.headers(null)
  session.signOut()
  try {
    await fetch("/console/sso/logout", { method: "POST", headers, cache: "no-store" })
  } catch {
    // out of reach: the session still ends when it expires, and this tab has forgotten it
  }
}

/** The reason a single sign-on came back refused (`?sso_error=`), taken out of the address bar. */
export const takeSsoError = (): string | null => {
  const url = new URL(location.href)
  const error = url.searchParams.get("sso_error")
  if (error === null) return null
  url.searchParams.delete("sso_error")
  history.replaceState(null, "", url.href)
  return error
}
