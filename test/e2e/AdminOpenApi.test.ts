/**
 * The admin API's description, served by the running gateway: `GET /admin/v1/openapi.json` names every
 * route the API answers (each one checked by calling it), with its body and answer schemas, and
 * `GET /admin/v1/docs` renders the same document as a page with no script. The wire around the
 * derived routes stays as it was: an unknown admin path is the gateway's JSON 404, and an answer
 * carries exactly the fields its schema names.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ADMIN_TOKEN, startGateway, type TestGateway } from "../utils/TestGateway.ts"

interface Operation {
  readonly operationId: string
  readonly summary?: string
  readonly requestBody?: { readonly content: Record<string, { readonly schema: { readonly $ref?: string } }> }
  readonly responses: Record<string, { readonly content?: Record<string, { readonly schema: unknown }> }>
  readonly security?: ReadonlyArray<Record<string, unknown>>
}

interface Document {
  readonly openapi: string
  readonly info: { readonly title: string }
  readonly paths: Record<string, Record<string, Operation>>
  readonly components: { readonly schemas: Record<string, { readonly properties?: Record<string, unknown> }> }
}

describe("the admin API's OpenAPI document", () => {
  let gw: TestGateway
  let document: Document

  beforeAll(async () => {
    gw = await startGateway()
    const response = await fetch(`${gw.url}/admin/v1/openapi.json`)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toContain("application/json")
    document = await response.json() as Document
  })
  afterAll(() => gw?.close())

  const operations = () =>
    Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ path, method: method.toUpperCase(), operation }))
    )

  it("lists every admin route with a summary, the bearer token or session cookie and the shared failures", () => {
    expect(document.openapi).toMatch(/^3\./)
    expect(document.info.title).toBe("svc-gateway admin API")
    const routes = operations().map(({ method, path }) => `${method} ${path}`).sort()
    expect(routes).toEqual([
      "DELETE /admin/v1/keys/{key_id}",
      "DELETE /admin/v1/orgs/{org_id}/mcp-servers/{server_id}",
      "DELETE /admin/v1/users/{user_id}/tokens/{token_id}",
      "GET /admin/v1/analytics",
      "GET /admin/v1/audit",
      "GET /admin/v1/circuits",
      "GET /admin/v1/keys/{key_id}",
      "GET /admin/v1/me",
      "GET /admin/v1/orgs",
      "GET /admin/v1/orgs/{org_id}",
      "GET /admin/v1/orgs/{org_id}/alerts",
      "GET /admin/v1/orgs/{org_id}/analytics",
      "GET /admin/v1/orgs/{org_id}/audit",
      "GET /admin/v1/orgs/{org_id}/keys",
      "GET /admin/v1/orgs/{org_id}/mcp-servers",
      "GET /admin/v1/orgs/{org_id}/requests",
      "GET /admin/v1/orgs/{org_id}/requests/{request_id}",
      "GET /admin/v1/orgs/{org_id}/sessions",
      "GET /admin/v1/orgs/{org_id}/sessions/{session_id}",
      "GET /admin/v1/orgs/{org_id}/spend",
      "GET /admin/v1/orgs/{org_id}/spend.csv",
      "GET /admin/v1/orgs/{org_id}/svc-tools",
      "GET /admin/v1/prices",
      "GET /admin/v1/spend",
      "GET /admin/v1/spend.csv",
      "GET /admin/v1/svc-tools",
      "GET /admin/v1/users",
      "GET /admin/v1/users/{user_id}",
      "GET /admin/v1/users/{user_id}/tokens",
      "PATCH /admin/v1/keys/{key_id}",
      "PATCH /admin/v1/orgs/{org_id}",
      "PATCH /admin/v1/users/{user_id}",
      "POST /admin/v1/orgs",
      "POST /admin/v1/orgs/{org_id}/keys",
      "POST /admin/v1/orgs/{org_id}/mcp-servers",
      "POST /admin/v1/orgs/{org_id}/mcp-servers/{server_id}/authorize",
      "POST /admin/v1/orgs/{org_id}/mcp-servers/{server_id}/refresh",
      "POST /admin/v1/users",
      "POST /admin/v1/users/{user_id}/tokens",
      "PUT /admin/v1/orgs/{org_id}/svc-tools/{tool_id}",
      "PUT /admin/v1/users/{user_id}/roles"
    ])
    for (const { operation } of operations()) {
      expect(operation.summary, operation.operationId).toBeTruthy()
      // a token as a bearer, or the console's single sign-on session cookie
      expect(operation.security).toEqual([{ bearer: [] }, { session: [] }])
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(["400", "401", "403", "404", "503"]))
    }
  })

  it("describes each resource with the fields the API answers with", async () => {
    const schemas = document.components.schemas
    const created = await gw.admin("POST", "/orgs", { name: "openapi org" })
    expect(Object.keys(created.json).sort()).toEqual(Object.keys(schemas["Org"]!.properties!).sort())
    const key = await gw.admin("POST", `/orgs/${created.json.id}/keys`, { name: "openapi key" })
    expect(key.status).toBe(201)
    expect(Object.keys(key.json).sort()).toEqual(Object.keys(schemas["CreatedApiKey"]!.properties!).sort())
    const create = document.paths["/admin/v1/orgs/{org_id}/keys"]!["post"]!
    expect(create.requestBody?.content["application/json"]?.schema.$ref).toBe("#/components/schemas/CreateKey")
    expect(Object.keys(create.responses)).toContain("201")
    for (const name of ["Limits", "ApiKey", "SvcTool", "OrgToolSetting", "LoggedRequest", "Analytics", "Circuit"]) {
      expect(schemas[name], name).toBeDefined()
    }
    expect(Object.keys(schemas["AnalyticsGroup"]!.properties!)).toEqual(
      expect.arrayContaining(["cached_tokens", "reasoning_tokens"])
    )
  })

  it("/admin/v1/docs renders every operation and schema, with no script", async () => {
    const response = await fetch(`${gw.url}/admin/v1/docs`)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toContain("text/html")
    expect(response.headers.get("content-security-policy")).toContain("default-src 'none'")
    const html = await response.text()
    expect(html).not.toContain("<script")
    for (const { operation } of operations()) expect(html).toContain(`id="${operation.operationId}"`)
    for (const name of Object.keys(document.components.schemas)) expect(html).toContain(`id="schema-${name}"`)
  })

  it("a query parameter given twice is a 400 naming it, before the org is looked up", async () => {
    const response = await fetch(`${gw.url}/admin/v1/orgs/org_none/requests?limit=1&limit=2`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` }
    })
    expect(response.status).toBe(400)
    const body = await response.json() as { error: { param: string; code: string } }
    expect(body.error).toMatchObject({ param: "limit", code: "invalid_value" })
  })

  it("an admin path the API does not have is the gateway's JSON 404", async () => {
    const response = await fetch(`${gw.url}/admin/v1/nothing-here`, { headers: { authorization: "Bearer x" } })
    expect(response.status).toBe(404)
    const body = await response.json() as { error: { message: string } }
    expect(body.error.message).toContain("/admin/v1/nothing-here")
  })
})
