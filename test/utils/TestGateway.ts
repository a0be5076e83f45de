/**
 * Starts the real gateway (every production layer) on 127.0.0.1 and a random port, for end-to-end
 * tests. The store is the in-memory embedded store (SQLite), or the PostgreSQL server named by `DATABASE_URL` when the
 * suite runs against it. Tests talk to it over real sockets, with fetch or the official SDK.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { ConfigProvider, Effect, Layer, ManagedRuntime } from "effect"
import { HttpServer } from "effect/http"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { expect } from "vitest"
import { AppServices, appServices, DrainingServer, HttpApp, serverOptions } from "../../src/App.ts"
import { GatewayConfig } from "../../src/Config.ts"
import { RequestLog } from "../../src/logs/RequestLog.ts"
import type { RequestRecord } from "../../src/logs/RequestRecord.ts"
import { Metrics, type MetricsShape } from "../../src/observability/Metrics.ts"
import type { SvcTool } from "../../src/tools/SvcTool.ts"
import { ToolRegistry } from "../../src/tools/ToolRegistry.ts"

export const ADMIN_TOKEN = "test-admin-token"

export interface TestGateway {
  readonly url: string
  /** Calls the admin API with the admin token. */
  readonly admin: (method: string, path: string, body?: unknown) => Promise<{ status: number; json: any }>
  /** Creates an org and a key in it; returns the secret. */
  readonly newKey: (options?: { readonly expiresAt?: string }) => Promise<{ orgId: string; keyId: string; key: string }>
  /** The gateway's metrics registry, to read what it recorded. */
  readonly metrics: MetricsShape
  /** Writes rows to the request log as the gateway would (history for the docs' screenshots). */
  readonly record: (records: ReadonlyArray<RequestRecord>) => Promise<void>
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
  // keep every request-log row: other suites seed old rows in the shared PostgreSQL database
  GATEWAY_LOG_RETENTION: "0 seconds",
  // no provider is asked for its model list: fake upstreams count every request (a test turns it on)
  GATEWAY_MODELS_REFRESH: "0 seconds",
  ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
  ...env
})

/**
 * `tools`: the shared tools to install instead of the plugins (tests add tools that fail, hang or
 * return too much). `tracing`: a tracer layer provided outermost, as main.ts provides TracingLive.
 */
export const startGateway = async <TA = never, TE = never>(
  env: Record<string, string> = {},
  options: { readonly tools?: ReadonlyArray<SvcTool>; readonly tracing?: Layer.Layer<TA, TE> } = {}
): Promise<TestGateway> => {
  const settings = testEnv(env)
  const services = options.tools === undefined ? AppServices : appServices(ToolRegistry.layerFrom(options.tools))
  const gateway = HttpApp.pipe(
    Layer.provideMerge(Layer.unwrap(Effect.map(
      Effect.service(GatewayConfig),
      (config) => NodeHttpServer.layer(() => new DrainingServer(serverOptions(config)), { port: 0, host: "127.0.0.1" })
    ))),
    Layer.provideMerge(services),
    Layer.provideMerge(GatewayConfig.layerFrom(settings))
  )
  const traced = options.tracing === undefined ? gateway : gateway.pipe(Layer.provide(options.tracing))
  // Every setting read anywhere comes from `env`, not from this process's environment: the routing file
  // reads provider API keys (`api_key_env`) itself, and a developer's OPENAI_API_KEY must not route a test
  // to a live API.
  const layer = traced.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord(settings))))
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

  const record = (records: ReadonlyArray<RequestRecord>) =>
    runtime.runPromise(
      Effect.flatMap(Effect.service(RequestLog), (log) => Effect.forEach(records, log.record, { discard: true }))
    )

  return {
    url,
    admin,
    newKey,
    metrics: await runtime.runPromise(Effect.service(Metrics)),
    record,
    close: () => runtime.dispose()
  }
}

// ---------------------------------------------------------------------------------------------------
// Helpers for the end-to-end suite: raw requests, SSE bodies and OpenAI error bodies.

/** POSTs a chat-completions body (an object, or raw text as is) to the gateway with fetch. */
export const postChat = (
  url: string,
  body: unknown,
  options: {
    readonly key?: string
    readonly path?: string
    readonly headers?: Readonly<Record<string, string>>
    readonly signal?: AbortSignal
  } = {}
): Promise<Response> =>
  fetch(`${url}${options.path ?? "/v1/chat/completions"}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(options.key === undefined ? {} : { authorization: `Bearer ${options.key}` }),
      ...options.headers
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
    ...(options.signal === undefined ? {} : { signal: options.signal })
  })

/** The `data:` payloads of a whole SSE body, in order (`[DONE]` included as the string it is). */
export const sseData = (text: string): ReadonlyArray<string> =>
  text
    .split(/\r?\n\r?\n/)
    .map((event) =>
      event
        .split(/\r?\n/)
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).replace(/^ /, ""))
        .join("\n")
    )
    .filter((data) => data !== "")

export interface OpenAiError {
  readonly message: string
  readonly type: string
  readonly param: string | null
  readonly code: string | null
}

/**
 * Checks an OpenAI error body has exactly `{"error":{"message","type","param","code"}}`, with a
 * non-empty message, and the expected values; returns the error for further checks.
 */
export const expectErrorBody = (
  json: unknown,
  expected: { readonly type?: string; readonly code?: string | null; readonly param?: string | null } = {}
): OpenAiError => {
  expect(typeof json === "object" && json !== null && !Array.isArray(json), JSON.stringify(json)).toBe(true)
  const body = json as { readonly error?: unknown }
  expect(Object.keys(body)).toEqual(["error"])
  const error = body.error as OpenAiError
  expect(Object.keys(error).sort()).toEqual(["code", "message", "param", "type"])
  expect(typeof error.message).toBe("string")
  expect(error.message.trim().length).toBeGreaterThan(10)
  expect(typeof error.type).toBe("string")
  expect(error.param === null || typeof error.param === "string").toBe(true)
  expect(error.code === null || typeof error.code === "string").toBe(true)
  if (expected.type !== undefined) expect(error.type).toBe(expected.type)
  if (expected.code !== undefined) expect(error.code).toBe(expected.code)
  if (expected.param !== undefined) expect(error.param).toBe(expected.param)
  return error
}

/** Checks a response's status, JSON content type and OpenAI error body; returns the error. */
export const expectError = async (
  response: Response,
  status: number,
  expected: { readonly type?: string; readonly code?: string | null; readonly param?: string | null } = {}
): Promise<OpenAiError> => {
  const text = await response.text()
  expect(response.status, text).toBe(status)
  expect(response.headers.get("content-type") ?? "").toMatch(/^application\/json/)
  return expectErrorBody(JSON.parse(text), expected)
}

/** The parts of a whole chat completion the suite reads. */
export interface CompletionJson {
  readonly id: string
  readonly object: string
  readonly model: string
  readonly choices: ReadonlyArray<{
    readonly index: number
    readonly message: { readonly role: string; readonly content: string | null }
    readonly finish_reason: string | null
  }>
  readonly usage: Readonly<Record<string, unknown>>
}

/** Checks a response is a 200 and reads it as a chat completion. */
export const completionOf = async (response: Response): Promise<CompletionJson> => {
  const text = await response.text()
  expect(response.status, text).toBe(200)
  return JSON.parse(text) as CompletionJson
}

/**
 * A request's row in the log, read through the admin API once the writer has stored it (batches are
 * written off the request path, so this polls for up to 5 s).
 */
export const logRowOf = async <Row = Record<string, unknown>>(
  gw: TestGateway,
  orgId: string,
  requestId: string
): Promise<Row> => {
  for (let i = 0; i < 100; i++) {
    const found = await gw.admin("GET", `/orgs/${orgId}/requests/${requestId}`)
    if (found.status === 200) return found.json as Row
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`no log row for ${requestId}`)
}
