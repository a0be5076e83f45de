/**
 * Single sign-on's edges without a browser (the flow itself is `test/browser/ConsoleSso.test.ts`):
 * off unless configured, with the token sign-in untouched; a session cookie that is not one is a 401
 * that says so, and a bearer wins over any cookie; signing out without the CSRF token is refused; an
 * identity provider out of reach sends the browser back with the reason; and settings that cannot work
 * stop the gateway from starting.
 */
import { createServer } from "node:net"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ADMIN_TOKEN, startGateway, type TestGateway } from "../utils/TestGateway.ts"

/** A loopback port nothing listens on. */
const closedPort = async (): Promise<number> => {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

describe("console single sign-on, off", () => {
  let gw: TestGateway
  beforeAll(async () => {
    gw = await startGateway()
  })
  afterAll(() => gw?.close())

  it("is not offered, and its routes are not there", async () => {
    const status = await fetch(`${gw.url}/console/sso/status`)
    expect(status.status).toBe(200)
    expect(status.headers.get("cache-control")).toBe("no-store")
    expect(await status.json()).toEqual({ enabled: false, signed_in: false, csrf_token: null })
    expect((await fetch(`${gw.url}/console/sso/login`, { redirect: "manual" })).status).toBe(404)
    expect((await fetch(`${gw.url}/console/sso/callback?code=x&state=y`, { redirect: "manual" })).status).toBe(404)
  })

  it("refuses a cookie that is no session, and lets a bearer win over any cookie", async () => {
    const cookie = "svc_console_session=made-up"
    const refused = await fetch(`${gw.url}/admin/v1/me`, { headers: { cookie } })
    expect(refused.status).toBe(401)
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain(
      "console session is not valid"
    )
    const bearer = await fetch(`${gw.url}/admin/v1/me`, { headers: { cookie, authorization: `Bearer ${ADMIN_TOKEN}` } })
    expect(bearer.status).toBe(200)
    expect(((await bearer.json()) as { kind: string }).kind).toBe("admin_token")
  })

  it("refuses to sign a cookie out without its CSRF token, and clears it with one gone", async () => {
    const refused = await fetch(`${gw.url}/console/sso/logout`, {
      method: "POST",
      headers: { cookie: "svc_console_session=made-up" }
    })
    expect(refused.status).toBe(403)
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain("x-csrf-token")
    const none = await fetch(`${gw.url}/console/sso/logout`, { method: "POST" })
    expect(none.status).toBe(204)
    expect(none.headers.get("set-cookie")).toMatch(/^svc_console_session=; .*Max-Age=0/i)
  })
})

describe("console single sign-on, provider out of reach", () => {
  let gw: TestGateway
  beforeAll(async () => {
    gw = await startGateway({
      GATEWAY_OIDC_ISSUER: `http://127.0.0.1:${await closedPort()}`,
      GATEWAY_OIDC_CLIENT_ID: "svc-gateway"
    })
  })
  afterAll(() => gw?.close())

  it("sends the browser back to the console with the reason", async () => {
    expect(await (await fetch(`${gw.url}/console/sso/status`)).json()).toMatchObject({ enabled: true })
    const login = await fetch(`${gw.url}/console/sso/login`, { redirect: "manual" })
    expect(login.status).toBe(302)
    const location = new URL(login.headers.get("location")!, gw.url)
    expect(location.pathname).toBe("/console/")
    expect(location.searchParams.get("sso_error")).toContain("could not be reached")
  })
})

describe("console single sign-on, settings that cannot work", () => {
  it.each([
    [{ GATEWAY_OIDC_ISSUER: "https://id.example.com" }, "set GATEWAY_OIDC_CLIENT_ID"],
    [{ GATEWAY_OIDC_ISSUER: "http://id.example.com", GATEWAY_OIDC_CLIENT_ID: "c" }, "must be an https URL"]
  ])("stop the start: %j", async (env, message) => {
    await expect(startGateway(env)).rejects.toThrow(message)
  })
})
