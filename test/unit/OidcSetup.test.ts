/**
 * The single sign-on settings checked when the gateway starts: none without an issuer, every
 * incomplete or unreadable setting refused with what to set, and a complete one read as given.
 */
import { Effect, Option, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import type { OidcSettings } from "../../src/Config.ts"
import { oidcSetup } from "../../src/sso/Oidc.ts"

const settings = (changes: Partial<OidcSettings> = {}): OidcSettings => ({
  issuer: Option.some("https://id.example.com/realms/team"),
  clientId: Option.some("svc-gateway"),
  clientSecret: Option.some(Redacted.make("s3cret")),
  redirectUrl: Option.none(),
  scopes: "openid email profile",
  rolesClaim: Option.none(),
  roleMap: "",
  requireVerifiedEmail: true,
  ...changes
})

const refusal = (changes: Partial<OidcSettings>) =>
  Effect.runPromise(Effect.flip(oidcSetup(settings(changes)))).then((error) => error.message)

describe("single sign-on settings", () => {
  it("are off without an issuer", async () => {
    expect(await Effect.runPromise(oidcSetup(settings({ issuer: Option.none() })))).toEqual(Option.none())
  })

  it("read a complete setting, adding openid to the scopes when missing", async () => {
    const setup = await Effect.runPromise(oidcSetup(settings({
      scopes: "email groups",
      rolesClaim: Option.some("groups"),
      roleMap: "admins=owner"
    })))
    expect(Option.isSome(setup)).toBe(true)
    const value = Option.getOrThrow(setup)
    expect(value.issuer.href).toBe("https://id.example.com/realms/team")
    expect(value.scopes).toBe("openid email groups")
    expect(value.roleMap.get("admins")).toEqual([{ role: "owner", org_id: null }])
  })

  it("take http only from a loopback provider", async () => {
    const local = await Effect.runPromise(oidcSetup(settings({ issuer: Option.some("http://127.0.0.1:8081/") })))
    expect(Option.isSome(local)).toBe(true)
    expect(await refusal({ issuer: Option.some("http://id.example.com") })).toContain("must be an https URL")
  })

  it.each<[string, Partial<OidcSettings>, string]>([
    ["an issuer that is no URL", { issuer: Option.some("id.example.com") }, "GATEWAY_OIDC_ISSUER 'id.example.com'"],
    ["no client id", { clientId: Option.none() }, "set GATEWAY_OIDC_CLIENT_ID"],
    ["a redirect URL that is no URL", { redirectUrl: Option.some("/callback") }, "GATEWAY_OIDC_REDIRECT_URL"],
    ["a role map it cannot read", { rolesClaim: Option.some("groups"), roleMap: "a=boss" }, "'a=boss' is not"],
    ["a role map without its claim", { roleMap: "a=owner" }, "set GATEWAY_OIDC_ROLES_CLAIM"],
    ["a claim without a map", { rolesClaim: Option.some("groups") }, "set GATEWAY_OIDC_ROLE_MAP"]
  ])("refuse %s", async (_, changes, message) => {
    expect(await refusal(changes)).toContain(message)
  })
})
