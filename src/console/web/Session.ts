/**
 * The token the console signed in with (the admin token or a person's personal access token), kept in
 * the tab's session storage: it survives a reload but not the tab, is never put in a URL, and is never
 * written to local storage or logged.
 */
const KEY = "svc-gateway.admin-token"

/** A personal access token's scheme; anything else is taken for the admin token. */
const PERSONAL = "pat-svc-"

export const session = {
  token: (): string | null => sessionStorage.getItem(KEY),
  signIn: (token: string) => sessionStorage.setItem(KEY, token),
  signOut: () => sessionStorage.removeItem(KEY)
}

/** How a token is named to the person who typed it. */
export const tokenName = (token: string | null): string =>
  token?.startsWith(PERSONAL) === true ? "personal access token" : "admin token"
