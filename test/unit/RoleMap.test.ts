/**
 * `GATEWAY_OIDC_ROLE_MAP` read and applied: entries `group=role[:org_id]`, a group in several entries,
 * every malformed entry refused with itself quoted; a claim's groups (a list, or one string) give the
 * roles mapped, each once, and anything else gives none.
 */
import { describe, expect, it } from "vitest"
import { parseRoleMap, rolesFromClaim } from "../../src/sso/RoleMap.ts"

describe("role map", () => {
  it("reads owner, admin and viewer entries, a group in several", () => {
    const map = parseRoleMap(" gw-owners=owner, team-a=admin:org_1 ,team-a=viewer:org_2,, ")
    expect(map).toEqual(
      new Map([
        ["gw-owners", [{ role: "owner", org_id: null }]],
        ["team-a", [{ role: "admin", org_id: "org_1" }, { role: "viewer", org_id: "org_2" }]]
      ])
    )
    expect(parseRoleMap("")).toEqual(new Map())
  })

  it("keeps an = inside a group's name; a comma always separates entries", () => {
    expect(parseRoleMap("cn=admins,ou=x=owner")).toEqual({
      error: "'cn=admins' is not 'group=owner', 'group=admin:<org_id>' or 'group=viewer:<org_id>'"
    })
    expect(parseRoleMap("cn=admins=owner")).toEqual(new Map([["cn=admins", [{ role: "owner", org_id: null }]]]))
  })

  it.each([
    ["no-equals", "no-equals"],
    ["=owner", "=owner"],
    ["g=root", "g=root"],
    ["g=owner:org_1", "g=owner:org_1"],
    ["g=admin", "g=admin"],
    ["g=viewer:", "g=viewer:"],
    ["g=admin:org_1:extra", "g=admin:org_1:extra"]
  ])("refuses '%s'", (text, entry) => {
    expect(parseRoleMap(text)).toEqual({
      error: `'${entry}' is not 'group=owner', 'group=admin:<org_id>' or 'group=viewer:<org_id>'`
    })
  })

  it("gives the roles of a claim's groups, each once", () => {
    const map = parseRoleMap("a=owner, b=viewer:org_1, c=viewer:org_1")
    if ("error" in map) throw new Error(map.error)
    expect(rolesFromClaim(map, ["b", "c", "unknown", 7])).toEqual([{ role: "viewer", org_id: "org_1" }])
    expect(rolesFromClaim(map, "a")).toEqual([{ role: "owner", org_id: null }])
    expect(rolesFromClaim(map, undefined)).toEqual([])
    expect(rolesFromClaim(map, { a: true })).toEqual([])
  })
})
