/**
 * Single sign-on in Chromium, against a real OpenID provider (`oidc-provider`) on 127.0.0.1: the
 * console's button, the provider's own sign-in and consent pages, and back. An owner by her groups is
 * made a user on her first sign-in, works through the console (its changes carry the CSRF token; one
 * without it is refused) and signs out, after which her old cookie opens nothing. A reader's roles follow
 * her groups from one sign-in to the next, audited. Someone with no mapped group, an unverified email,
 * and a callback this browser did not begin are sent back to the sign-in page with the reason, which
 * passes axe-core's WCAG 2.1 A/AA checks.
 */
import type { BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startOidcProvider, type TestProvider } from "../utils/OidcProvider.ts"
import { type ConsoleUnderTest, createOrgInConsole, inPage, startConsole, violations } from "./ConsoleBrowser.ts"

describe("console: single sign-on with OpenID Connect, in Chromium", () => {
  let c: ConsoleUnderTest
  let idp: TestProvider
  const suffix = Math.random().toString(36).slice(2, 8)
  const owners = `sso-owners-${suffix}`
  const readers = `sso-readers-${suffix}`
  const readOrg = `org_sso_${suffix}`
  const email = (name: string) => `${name}-${suffix}@example.test`

  beforeAll(async () => {
    idp = await startOidcProvider()
    c = await startConsole({
      GATEWAY_OIDC_ISSUER: idp.issuer,
      GATEWAY_OIDC_CLIENT_ID: idp.clientId,
      GATEWAY_OIDC_CLIENT_SECRET: idp.clientSecret,
      GATEWAY_OIDC_SCOPES: "openid email profile groups",
      GATEWAY_OIDC_ROLES_CLAIM: "groups",
      GATEWAY_OIDC_ROLE_MAP: `${owners}=owner, ${readers}=viewer:${readOrg}`
    })
    idp.register(`${c.gw.url}/console/sso/callback`)
  })
  afterAll(async () => {
    await c?.close()
    await idp?.close()
  })

  /** From the console's sign-in page through the provider's pages; leaves the page where it lands. */
  const throughProvider = async (page: Page, login: string) => {
    await page.getByRole("link", { name: "Sign in with single sign-on" }).click()
    await page.locator("input[name=login]").fill(login)
    await page.locator("input[name=password]").fill("any password")
    await page.getByRole("button", { name: "Sign-in" }).click()
    await page.getByRole("button", { name: "Continue" }).click()
  }

  const signedInAs = async (login: string): Promise<Page> => {
    const page = await c.open({ signIn: false })
    await throughProvider(page, login)
    await page.getByRole("heading", { level: 1, name: "Organizations" }).waitFor()
    return page
  }

  const sessionCookie = async (context: BrowserContext) =>
    (await context.cookies()).find((cookie) => cookie.name === "svc_console_session")

  it("signs an owner in by her groups, keeps the session in a strict HTTP-only cookie, and signs her out", async () => {
    const ana = email("ana")
    idp.accounts.set(ana, { groups: [owners, "unrelated"], name: "Ana Owner" })
    const page = await signedInAs(ana)
    await expect.poll(() => page.locator(".who").textContent()).toContain(ana)
    expect(await page.locator(".who").textContent()).toContain("Ana Owner")

    const cookie = await sessionCookie(page.context())
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict", secure: false, path: "/" })
    expect(cookie!.expires * 1000).toBeGreaterThan(Date.now() + 11 * 3_600_000)
    // the page holds no credential of its own
    expect(await inPage(page, "JSON.stringify(Object.entries(sessionStorage))")).toBe("[]")
    expect(await inPage(page, "document.cookie")).toBe("")

    // a change through the console: sent with the CSRF token, recorded under her name
    const orgId = await createOrgInConsole(page, `SSO org ${suffix}`)
    const audit = await c.gw.admin("GET", `/audit?actor=${encodeURIComponent(ana)}`)
    expect(audit.json.data.map((r: { action: string }) => r.action)).toEqual(
      expect.arrayContaining(["org.create", "user.sso_create"])
    )
    expect(audit.json.data.find((r: { action: string }) => r.action === "org.create").target.id).toBe(orgId)

    // the cookie alone changes nothing: a cross-site form or script cannot have the CSRF token
    const bare = await inPage<{ status: number; message: string }>(
      page,
      `fetch("/admin/v1/orgs", { method: "POST", headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "csrf" }) })
        .then(async (r) => ({ status: r.status, message: (await r.json()).error.message }))`
    )
    expect(bare.status).toBe(403)
    expect(bare.message).toContain("x-csrf-token")
    // reading needs no token
    expect(await inPage(page, `fetch("/admin/v1/me").then((r) => r.status)`)).toBe(200)

    await page.getByRole("button", { name: "Sign out" }).click()
    await page.getByRole("link", { name: "Sign in with single sign-on" }).waitFor()
    expect(await sessionCookie(page.context())).toBeUndefined()
    // the old cookie, replayed, is refused: sign-out ended the session, not only the browser's copy
    const replay = await fetch(`${c.gw.url}/admin/v1/me`, {
      headers: { cookie: `svc_console_session=${cookie!.value}` }
    })
    expect(replay.status).toBe(401)
    expect(((await replay.json()) as { error: { message: string } }).error.message).toContain("signed out")
  })

  it("gives a reader the roles her groups carry, and follows them when the groups change", async () => {
    const rita = email("rita")
    idp.accounts.set(rita, { groups: [readers] })
    const first = await signedInAs(rita)
    const me = await inPage<{ user: { roles: ReadonlyArray<unknown> } }>(
      first,
      `fetch("/admin/v1/me").then((r) => r.json())`
    )
    expect(me.user.roles).toEqual([{ role: "viewer", org_id: readOrg }])
    // a viewer may not create an organization: the console offers no form, the API says 403
    expect(await first.getByRole("button", { name: "Create organization" }).count()).toBe(0)

    idp.accounts.set(rita, { groups: [readers, owners] })
    const second = await signedInAs(rita)
    const now = await inPage<{ user: { roles: ReadonlyArray<{ role: string }> } }>(
      second,
      `fetch("/admin/v1/me").then((r) => r.json())`
    )
    expect(now.user.roles.map((grant) => grant.role).sort()).toEqual(["owner", "viewer"])
    const audit = await c.gw.admin("GET", `/audit?actor=${encodeURIComponent(rita)}&action=user.sso_roles`)
    expect(audit.json.data).toHaveLength(1)
    expect(audit.json.data[0].before.roles).toEqual([{ role: "viewer", org_id: readOrg }])
  })

  it("sends a person with no mapped group back to sign-in with the reason, and makes no user", async () => {
    const nobody = email("nobody")
    idp.accounts.set(nobody, { groups: ["somewhere-else"] })
    const page = await c.open({ signIn: false, bypassCSP: true })
    await throughProvider(page, nobody)
    await page.getByText(`${nobody} has no role on this gateway`).waitFor()
    expect(new URL(page.url()).search).toBe("")
    // the sign-in page with both ways in and a refusal on it passes WCAG 2.1 A/AA
    expect(await violations(page)).toEqual([])
    const users = await c.gw.admin("GET", "/users")
    expect(users.json.data.some((user: { email: string }) => user.email === nobody)).toBe(false)
  })

  it("refuses an email the provider does not call verified", async () => {
    const unverified = email("unverified")
    idp.accounts.set(unverified, { groups: [owners], emailVerified: false })
    const page = await c.open({ signIn: false })
    await throughProvider(page, unverified)
    await page.getByText(`does not say ${unverified} is verified`).waitFor()
    expect(await sessionCookie(page.context())).toBeUndefined()
  })

  it("refuses a callback this browser did not begin", async () => {
    const page = await c.open({ signIn: false })
    await page.goto(`${c.gw.url}/console/sso/callback?code=stolen&state=not-mine`)
    await page.getByText("This sign-in was begun in another browser").waitFor()
    expect(await sessionCookie(page.context())).toBeUndefined()
  })
})
