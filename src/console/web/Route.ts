/**
 * Where the console is, kept in the URL's fragment (`#/orgs/org_1/requests?tag=prod`) so a reload or a
 * shared link opens the same page with the same filters, and the gateway serves one page for all.
 */
import { useEffect, useMemo, useState } from "preact/hooks"

export type Page =
  | "orgs"
  | "people"
  | "account"
  | "keys"
  | "tools"
  | "mcp-servers"
  | "requests"
  | "sessions"
  | "analytics"
  | "spend"
  | "audit"
  | "quick-start"

export interface Route {
  readonly page: Page
  readonly orgId?: string
  /** A request's id, on the requests page: its detail. */
  readonly requestId?: string
  /** A client session's id, on the sessions page: its timeline. */
  readonly sessionId?: string
  readonly params: URLSearchParams
}

const ORG_PAGES: ReadonlyArray<Page> = [
  "keys",
  "tools",
  "mcp-servers",
  "requests",
  "sessions",
  "analytics",
  "spend",
  "audit"
]

/** The pages of the whole gateway rather than of one organization, in the URL as `#/<page>`. */
const GATEWAY_PAGES: ReadonlyArray<Page> = ["orgs", "people", "account", "quick-start"]

/** Whether a page shows one organization (`#/orgs/<id>/<page>`). */
export const isOrgPage = (page: Page): boolean => ORG_PAGES.includes(page)

export const parseRoute = (hash: string): Route => {
  const [path = "", search = ""] = hash.replace(/^#/, "").split("?")
  const parts = path.split("/").filter((part) => part !== "").map(decodeURIComponent)
  const params = new URLSearchParams(search)
  if (parts[0] === "orgs" && parts[1] !== undefined) {
    const page = ORG_PAGES.find((p) => p === parts[2]) ?? "keys"
    const item = parts[3]
    if (item !== undefined && page === "requests") return { page, orgId: parts[1], requestId: item, params }
    if (item !== undefined && page === "sessions") return { page, orgId: parts[1], sessionId: item, params }
    return { page, orgId: parts[1], params }
  }
  return { page: GATEWAY_PAGES.find((p) => p === parts[0]) ?? "orgs", params }
}

export const href = (
  page: Page,
  orgId?: string,
  options: { readonly requestId?: string; readonly sessionId?: string; readonly params?: URLSearchParams } = {}
): string => {
  const search = options.params === undefined || options.params.size === 0 ? "" : `?${options.params}`
  if (!isOrgPage(page)) return `#/${page}${search}`
  if (orgId === undefined) return "#/orgs"
  const item = options.requestId ?? options.sessionId
  const itemPath = item === undefined ? "" : `/${encodeURIComponent(item)}`
  return `#/orgs/${encodeURIComponent(orgId)}/${page}${itemPath}${search}`
}

export const navigate = (to: string) => {
  if (location.hash !== to) location.hash = to
}

export const useRoute = (): Route => {
  const [hash, setHash] = useState(() => location.hash)
  useEffect(() => {
    const update = () => setHash(location.hash)
    addEventListener("hashchange", update)
    // effects run after the first paint: a move made between the first render and this listener (a
    // link followed, or a page address entered, right as the console appeared) fired no event we heard
    update()
    return () => removeEventListener("hashchange", update)
  }, [])
  return useMemo(() => parseRoute(hash), [hash])
}
