/**
 * The console's frame: sign-in until a token is kept or single sign-on has a session, then the header
 * (pages, the organization being looked at, who is signed in, sign-out) and the page the URL names,
 * offering what her roles allow.
 */
import { useEffect, useMemo, useRef, useState } from "preact/hooks"
import { type Access, AccessContext, accessOf, useAccess } from "./Access.ts"
import { api, type Org, whenUnauthorized } from "./Api.ts"
import { AccountPage } from "./pages/AccountPage.tsx"
import { AnalyticsPage } from "./pages/AnalyticsPage.tsx"
import { AuditPage } from "./pages/AuditPage.tsx"
import { KeysPage } from "./pages/KeysPage.tsx"
import { McpServersPage } from "./pages/McpServersPage.tsx"
import { OrgsPage } from "./pages/OrgsPage.tsx"
import { PeoplePage } from "./pages/PeoplePage.tsx"
import { QuickStartPage } from "./pages/QuickStartPage.tsx"
import { RequestsPage } from "./pages/RequestsPage.tsx"
import { SessionsPage } from "./pages/SessionsPage.tsx"
import { SignIn } from "./pages/SignIn.tsx"
import { SpendPage } from "./pages/SpendPage.tsx"
import { ToolsPage } from "./pages/ToolsPage.tsx"
import { Notice } from "./parts/Notice.tsx"
import { takeReturnMessage } from "./parts/ReturnMessage.ts"
import { SignedInAs } from "./parts/SignedInAs.tsx"
import { useLoad } from "./parts/useLoad.ts"
import { href, isOrgPage, navigate, type Page, type Route, useRoute } from "./Route.ts"
import { session, ssoSignOut, type SsoStatus, ssoStatus, takeSsoError, tokenName } from "./Session.ts"

const NAV: ReadonlyArray<{ readonly page: Page; readonly label: string }> = [
  { page: "orgs", label: "Organizations" },
  { page: "people", label: "People" },
  { page: "keys", label: "API keys" },
  { page: "tools", label: "Shared tools" },
  { page: "mcp-servers", label: "MCP servers" },
  { page: "requests", label: "Requests" },
  { page: "sessions", label: "Sessions" },
  { page: "analytics", label: "Analytics" },
  { page: "spend", label: "Spend" },
  { page: "audit", label: "Audit log" },
  { page: "quick-start", label: "Quick start" }
]

/** Until `/me` answers, nothing that needs a role is offered. */
const UNKNOWN: Access = { me: null, owner: false, administers: () => false, administersSome: false }

/** Whether the header links to a page: the audit log for the org's admins and owners, People for any admin. */
const offers = (page: Page, access: Access, orgId: string | undefined) =>
  page === "audit"
    ? orgId !== undefined && access.administers(orgId)
    : page !== "people" || access.administersSome

/** `The personal access token has been revoked.` as a reason after "Signed out: ". */
const asReason = (message: string) => `${message.charAt(0).toLowerCase()}${message.slice(1)}`

export const App = () => {
  const [signedIn, setSignedIn] = useState(session.token() !== null)
  const [reason, setReason] = useState<string | null>(null)
  const [ssoError] = useState(takeSsoError)
  // without a kept token, the gateway is asked whether single sign-on is offered and signed this browser in
  const [sso, setSso] = useState<SsoStatus | null>(null)
  useEffect(() => {
    if (signedIn) return
    void ssoStatus().then((status) => {
      if (status.signed_in && status.csrf_token !== null) {
        session.signInBySso(status.csrf_token)
        setSignedIn(true)
      }
      setSso(status)
    })
  }, [signedIn])
  useEffect(() =>
    whenUnauthorized((message) => {
      const kind = session.bySso() ? "sso" : tokenName(session.token())
      session.signOut()
      setReason(kind === "admin token" ? "the gateway no longer accepts this admin token." : asReason(message))
      setSignedIn(false)
    }), [])

  if (!signedIn) {
    if (sso === null && session.token() === null) return <p aria-busy="true">Loading…</p>
    return (
      <SignIn
        reason={reason}
        error={ssoError}
        sso={sso?.enabled ?? false}
        onSignedIn={(token) => {
          session.signIn(token)
          setReason(null)
          setSignedIn(true)
        }}
      />
    )
  }
  return (
    <Console
      onSignOut={() => {
        const out = session.bySso() ? ssoSignOut() : Promise.resolve(session.signOut())
        void out.then(() => {
          setSso(null)
          setSignedIn(false)
        })
      }}
    />
  )
}

const Console = (props: { readonly onSignOut: () => void }) => {
  const route = useRoute()
  // back from an MCP server's authorization server: what came of it
  const [returned, setReturned] = useState(takeReturnMessage)
  const me = useLoad(api.me, [])
  const orgs = useLoad(api.orgs, [])
  // /me unreadable (an older gateway, a network fault): offer everything, the API refuses what it must
  const access = useMemo(
    () => me.data !== undefined ? accessOf(me.data) : me.error !== null ? accessOf(null) : UNKNOWN,
    [me.data, me.error]
  )
  const list = orgs.data ?? []
  // a page of an org with no org named: the first org, so the header's links always lead somewhere
  const orgId = route.orgId ?? list[0]?.id
  const org = list.find((o) => o.id === orgId)

  const main = useRef<HTMLElement>(null)
  const first = useRef(true)
  useEffect(() => {
    // after a move to another page, focus its heading so keyboard and screen-reader users start there
    if (first.current) {
      first.current = false
      return
    }
    main.current?.querySelector("h1")?.focus()
  }, [route.page, route.orgId, route.requestId, route.sessionId])

  return (
    <AccessContext.Provider value={access}>
      <a
        class="skip"
        href="#main"
        onClick={(event) => {
          event.preventDefault()
          main.current?.querySelector("h1")?.focus()
        }}
      >
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href={href("orgs")}>svc-gateway</a>
        <nav aria-label="Pages">
          <ul>
            {NAV.filter((item) => offers(item.page, access, orgId)).map((item) => (
              <li key={item.page}>
                <a
                  href={href(item.page, orgId)}
                  aria-current={item.page === route.page ? "page" : undefined}
                >
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="top-end">
          <OrgPicker orgs={list} current={orgId} route={route} access={access} />
          <SignedInAs me={me.data ?? null} orgs={list} />
          <button type="button" onClick={props.onSignOut}>Sign out</button>
        </div>
      </header>
      <main id="main" ref={main}>
        <Notice message={returned} onDismiss={() => setReturned(null)} />
        {orgs.error === null ? null : <Notice message={{ kind: "error", text: orgs.error }} />}
        {me.error === null ? null : <Notice message={{ kind: "error", text: `Who is signed in: ${me.error}` }} />}
        {access === UNKNOWN
          ? <p aria-busy="true">Loading…</p>
          : <PageView route={route} org={org} orgs={list} orgsLoading={orgs.loading} reloadOrgs={orgs.reload} />}
      </main>
    </AccessContext.Provider>
  )
}

const OrgPicker = (props: {
  readonly orgs: ReadonlyArray<Org>
  readonly current: string | undefined
  readonly route: Route
  readonly access: Access
}) => {
  if (props.orgs.length === 0) return null
  const page = isOrgPage(props.route.page) ? props.route.page : "keys"
  // the same page of the org chosen, unless her role there does not offer it
  const to = (orgId: string) => href(offers(page, props.access, orgId) ? page : "keys", orgId)
  return (
    <label class="org-picker">
      <span>Organization</span>
      <select value={props.current} onChange={(event) => navigate(to(event.currentTarget.value))}>
        {props.orgs.map((org) => <option key={org.id} value={org.id}>{org.name}</option>)}
      </select>
    </label>
  )
}

const PageView = (props: {
  readonly route: Route
  readonly org: Org | undefined
  readonly orgs: ReadonlyArray<Org>
  readonly orgsLoading: boolean
  readonly reloadOrgs: () => Promise<void>
}) => {
  const { route, org } = props
  if (route.page === "orgs") return <OrgsPage orgs={props.orgs} loading={props.orgsLoading} reload={props.reloadOrgs} />
  if (route.page === "quick-start") return <QuickStartPage />
  if (route.page === "people") return <PeoplePage orgs={props.orgs} />
  if (route.page === "account") return <AccountPage orgs={props.orgs} />
  if (org === undefined) {
    if (props.orgsLoading) return <p aria-busy="true">Loading…</p>
    return <NoSuchOrg orgId={route.orgId} orgs={props.orgs} />
  }
  switch (route.page) {
    case "keys":
      return <KeysPage org={org} />
    case "tools":
      return <ToolsPage org={org} />
    case "mcp-servers":
      return <McpServersPage org={org} />
    case "requests":
      return <RequestsPage org={org} route={route} />
    case "sessions":
      return <SessionsPage org={org} route={route} />
    case "analytics":
      return <AnalyticsPage org={org} route={route} />
    case "spend":
      return <SpendPage org={org} route={route} reloadOrgs={props.reloadOrgs} />
    case "audit":
      return <AuditPage org={org} route={route} />
  }
}

/** An org page without an org: none yet, an unknown id, or (for a person) one she has no role in. */
const NoSuchOrg = (props: { readonly orgId: string | undefined; readonly orgs: ReadonlyArray<Org> }) => {
  const { owner } = useAccess()
  return (
    <section>
      <h1 tabIndex={-1}>No such organization</h1>
      <p>
        {props.orgs.length === 0
          ? owner ? "There are no organizations yet. " : "You have no role in any organization yet. "
          : owner
          ? `No organization has the id ${props.orgId ?? ""}. `
          : `You have no role in an organization with the id ${props.orgId ?? ""}. `}
        <a href={href("orgs")}>Go to Organizations</a> {owner ? "to pick or create one." : "to pick one."}
      </p>
    </section>
  )
}
