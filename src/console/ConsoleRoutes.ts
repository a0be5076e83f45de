/**
 * The console at `/console`: the page `npm run build` writes (Vite, from src/console/web) into
 * GATEWAY_CONSOLE_DIR. The files are read once, when the gateway starts, and served from memory: only
 * names found in that folder are ever answered, so no request path reaches the file system.
 *
 * The page talks to the admin API on the same origin with the admin token as a bearer, so the policy
 * below allows scripts, styles and fetches from this origin only, and no framing.
 */
import { Effect, Layer } from "effect"
import { HttpRouter, type HttpServerRequest, HttpServerResponse } from "effect/http"
import { readdirSync, readFileSync } from "node:fs"
import { extname, join, relative, sep } from "node:path"
import { GatewayConfig } from "../Config.ts"
import { errorResponse } from "../http/ErrorResponse.ts"
import { RequestError, RouteNotFound } from "../kernel/RequestError.ts"

const SECURITY_HEADERS = {
  "content-security-policy": [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'"
  ].join("; "),
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY"
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".txt": "text/plain; charset=utf-8",
  ".woff2": "font/woff2"
}

interface Asset {
  readonly body: Uint8Array
  readonly contentType: string
  readonly cacheControl: string
}

/** Every file of the built console by URL path (`/console/assets/index-3f2a.js`); empty when not built. */
export const loadConsole = (dir: string): ReadonlyMap<string, Asset> => {
  let names: ReadonlyArray<string>
  try {
    names = readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
  } catch {
    return new Map()
  }
  return new Map(names.map((name) => {
    const path = `/console/${name.split(sep).join("/")}`
    // Vite puts a content hash in every name under assets/, so those never change; the page itself must
    // be asked for again after an upgrade
    const hashed = path.startsWith("/console/assets/")
    return [path, {
      body: readFileSync(join(dir, name)),
      contentType: CONTENT_TYPES[extname(name)] ?? "application/octet-stream",
      cacheControl: hashed ? "public, max-age=31536000, immutable" : "no-cache"
    }]
  }))
}

const serve = (asset: Asset) =>
  HttpServerResponse.uint8Array(asset.body, {
    contentType: asset.contentType,
    headers: { ...SECURITY_HEADERS, "cache-control": asset.cacheControl }
  })

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>svc-gateway console</title>
<p>The console has not been built. Run <code>npm run build</code> (<code>npm start</code> runs it) and restart the gateway,
or set <code>GATEWAY_CONSOLE_DIR</code> to a built console.</p>`

export const ConsoleRoutes = Layer.unwrap(Effect.gen(function*() {
  const assets = loadConsole((yield* GatewayConfig).consoleDir)
  const index = assets.get("/console/index.html")

  const handle = (request: HttpServerRequest.HttpServerRequest) => {
    if (index === undefined) {
      return Effect.succeed(
        HttpServerResponse.text(NOT_BUILT, {
          status: 503,
          contentType: "text/html; charset=utf-8",
          headers: SECURITY_HEADERS
        })
      )
    }
    const path = request.url.split("?")[0]!.split("#")[0]!
    const asset = assets.get(path)
    if (asset !== undefined) return Effect.succeed(serve(asset))
    // the page routes in the URL's fragment, so any other page path is the page itself; a missing file
    // (a name with an extension) is a plain 404, not the page
    if (extname(path) === "") return Effect.succeed(serve(index))
    return Effect.succeed(
      errorResponse(new RequestError({ reason: new RouteNotFound({ method: request.method, path: request.url }) }))
    )
  }

  // the router takes `/console/*` to match `/console` as well
  return HttpRouter.add("GET", "/console/*", handle)
}))
