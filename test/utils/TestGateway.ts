/**
 * Starts the real gateway (every production layer) on 127.0.0.1 and a random port, for end-to-end
 * tests. The store is in-memory PGlite, or the PostgreSQL server named by `DATABASE_URL` when the
 * suite runs against it. Tests talk to it over real sockets, with fetch or the official SDK.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer, ManagedRuntime } from "effect"
import { HttpServer } from "effect/http"
import { mkdtempSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { AppServices, HttpApp } from "../../src/App.ts"
import { GatewayConfig } from "../../src/Config.ts"

export const ADMIN_TOKEN = "test-admin-token"

export interface TestGateway {
  readonly url: string
  /** Calls the admin API with the admin token. */
  readonly admin: (method: string, path: string, body?: unknown) => Promise<{ status: number; json: any }>
  /** Creates an org and a key in it; returns the secret. */
  readonly newKey: (options?: { readonly expiresAt?: string }) => Promise<{ orgId: string; keyId: string; key: string }>
  readonly close: () => Promise<void>
}

/** Writes a routing file (see RoutingConfig.ts) and returns its path. */
export const writeRouting = (routing: unknown): string => {
  const dir = mkdtempSync(join(tmpdir(), "svc-gateway-test-"))
  const path = join(dir, "gateway.json")
  writeFileSync(path, JSON.stringify(routing))
  return path
}

/** The settings a test gateway runs with; `env` overrides them. */
export const testEnv = (env: Record<string, string> = {}): Record<string, string> => ({
  GATEWAY_DATA_DIR: "memory://",
  GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
  GATEWAY_BOOTSTRAP: "false",
  ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
  ...env
})

export const startGateway = async (env: Record<string, string> = {}): Promise<TestGateway> => {
  const layer = HttpApp.pipe(
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
    Layer.provideMerge(AppServices),
    Layer.provideMerge(GatewayConfig.layerFrom(testEnv(env)))
  )
  const runtime = ManagedRuntime.make(layer)
  const address = await runtime.runPromise(Effect.map(Effect.service(HttpServer.HttpServer), (s) => s.address))
  if (address._tag === "UnixPathAddress") throw new Error("expected a TCP address")
  const url = `http://127.0.0.1:${address.port}`

  const admin = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${url}/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    const text = await response.text()
    return { status: response.status, json: text === "" ? null : JSON.parse(text) }
  }

  const newKey = async (options: { readonly expiresAt?: string } = {}) => {
    const org = await admin("POST", "/orgs", { name: `org-${Math.random().toString(36).slice(2)}` })
    if (org.status !== 201) throw new Error(`org create failed: ${JSON.stringify(org)}`)
    const key = await admin("POST", `/orgs/${org.json.id}/keys`, {
      name: "test",
      ...(options.expiresAt === undefined ? {} : { expires_at: options.expiresAt })
    })
    if (key.status !== 201) throw new Error(`key create failed: ${JSON.stringify(key)}`)
    return { orgId: org.json.id as string, keyId: key.json.id as string, key: key.json.key as string }
  }

  return { url, admin, newKey, close: () => runtime.dispose() }
}
