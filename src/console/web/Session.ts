/**
 * The admin token, kept in the tab's session storage: it survives a reload but not the tab, is never
 * put in a URL, and is never written to local storage or logged.
 */
const KEY = "svc-gateway.admin-token"

export const session = {
  token: (): string | null => sessionStorage.getItem(KEY),
  signIn: (token: string) => sessionStorage.setItem(KEY, token),
  signOut: () => sessionStorage.removeItem(KEY)
}
