/**
 * How the gateway serves the console's files: the page at /console and at any page path under it,
 * hashed assets cached for good, the page itself revalidated, a strict content policy on all of it,
 * a missing file a JSON 404, nothing outside the built folder, and a clear 503 when it was never built.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { request } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startGateway, type TestGateway } from "../utils/TestGateway.ts"

const INDEX = "<!doctype html><title>console</title><script type=module src=/console/assets/index-abc123.js></script>"

/** A GET with the path exactly as given: fetch would normalise `..` away before sending it. */
const rawGet = (url: string, path: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(`${url}${path}`, { method: "GET", path }, (res) => {
      let body = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => (body += chunk))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on("error", reject)
    req.end()
  })

describe("the console's files", () => {
  let gw: TestGateway
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-gateway-console-test-"))
    mkdirSync(join(dir, "assets"))
    writeFileSync(join(dir, "index.html"), INDEX)
    writeFileSync(join(dir, "assets", "index-abc123.js"), "console.log('console')")
    writeFileSync(join(dir, "assets", "index-abc123.css"), "body{}")
    gw = await startGateway({ GATEWAY_CONSOLE_DIR: dir })
  })
  afterAll(() => gw?.close())

  it("serves the page at /console, /console/ and page paths, revalidated, under a strict policy", async () => {
    for (const path of ["/console", "/console/", "/console/keys", "/console?x=1"]) {
      const response = await fetch(`${gw.url}${path}`)
      expect(response.status, path).toBe(200)
      expect(await response.text()).toBe(INDEX)
      expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8")
      expect(response.headers.get("cache-control")).toBe("no-cache")
      const policy = response.headers.get("content-security-policy") ?? ""
      expect(policy).toContain("script-src 'self'")
      expect(policy).toContain("frame-ancestors 'none'")
      expect(policy).not.toContain("unsafe-inline")
      expect(response.headers.get("x-content-type-options")).toBe("nosniff")
      expect(response.headers.get("referrer-policy")).toBe("no-referrer")
    }
  })

  it("serves hashed assets with their type, cached for good", async () => {
    const js = await fetch(`${gw.url}/console/assets/index-abc123.js`)
    expect(js.status).toBe(200)
    expect(await js.text()).toBe("console.log('console')")
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8")
    expect(js.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
    const css = await fetch(`${gw.url}/console/assets/index-abc123.css`)
    expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8")
  })

  it("a missing file is a JSON 404, not the page; nothing outside the folder is reachable", async () => {
    const missing = await fetch(`${gw.url}/console/assets/gone.js`)
    expect(missing.status).toBe(404)
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe("not_found")
    for (
      const path of ["/console/../package.json", "/console/%2e%2e/package.json", "/console/assets/../../src/main.ts"]
    ) {
      const response = await rawGet(gw.url, path)
      expect(response.body, path).not.toContain("svc-gateway\"")
      expect(response.body, path).not.toContain("NodeRuntime")
    }
  })

  it("admin and API routes are not shadowed by the console", async () => {
    expect((await fetch(`${gw.url}/health`)).status).toBe(200)
    expect((await fetch(`${gw.url}/admin/v1/orgs`)).status).toBe(401)
  })
})

describe("a gateway whose console was never built", () => {
  let gw: TestGateway
  beforeAll(async () => {
    gw = await startGateway({ GATEWAY_CONSOLE_DIR: join(tmpdir(), "svc-gateway-no-console-here") })
  })
  afterAll(() => gw?.close())

  it("answers /console with 503 and says how to build it; the API works", async () => {
    const response = await fetch(`${gw.url}/console`)
    expect(response.status).toBe(503)
    expect(await response.text()).toContain("npm run build")
    expect((await fetch(`${gw.url}/health`)).status).toBe(200)
  })
})
