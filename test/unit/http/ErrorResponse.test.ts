/**
 * `describeError` as tables: every reason of every edge error gets its status, OpenAI error type, code
 * and param. Each table is keyed by the reason tags, so a reason added without a row here fails to
 * compile. Store failures say nothing about the store's internals.
 */
import { assert, describe, it } from "@effect/vitest"
import { SqlError } from "effect/sql"
import {
  AuthError,
  ExpiredKey,
  InvalidAdminToken,
  InvalidKey,
  MissingKey,
  RevokedKey
} from "../../../src/auth/AuthError.ts"
import { type Described, describeError, type EdgeError } from "../../../src/http/ErrorResponse.ts"
import { AdminError, Conflict, Forbidden, NotFound } from "../../../src/kernel/AdminError.ts"
import * as Req from "../../../src/kernel/RequestError.ts"
import {
  ProviderError,
  ProviderUnavailable,
  TargetOpen,
  UpstreamBadResponse,
  UpstreamStatus,
  UpstreamTimeout,
  UpstreamUnreachable
} from "../../../src/providers/ProviderError.ts"

interface Expected {
  readonly status: number
  readonly type: string
  readonly code: string | null
  readonly param?: string | null
  /** Fragments the message must contain. */
  readonly says?: ReadonlyArray<string>
  readonly extra?: Readonly<Record<string, unknown>>
}

type Row = readonly [EdgeError, Expected]

const check = ([error, expected]: Row) => {
  const described: Described = describeError(error)
  const { message, type, code, param, ...extra } = described.body.error
  assert.strictEqual(described.status, expected.status, "status")
  assert.strictEqual(type, expected.type, "type")
  assert.strictEqual(code, expected.code, "code")
  assert.strictEqual(param, expected.param ?? null, "param")
  assert.isString(message)
  assert.isAbove(message.length, 0)
  for (const fragment of expected.says ?? []) assert.include(message, fragment)
  assert.deepStrictEqual(extra, expected.extra ?? {})
}

const table = (rows: Readonly<Record<string, Row>>) => {
  for (const [tag, row] of Object.entries(rows)) it(tag, () => check(row))
}

const request = (reason: Req.RequestError["reason"]) => new Req.RequestError({ reason })
const invalid = "invalid_request_error"

describe("describeError: RequestError", () => {
  const rows: Record<Req.RequestError["reason"]["_tag"], Row> = {
    InvalidField: [Req.RequestError.invalidField("messages[0].role", "Invalid value for 'messages[0].role'."), {
      status: 400,
      type: invalid,
      code: "invalid_value",
      param: "messages[0].role",
      says: ["messages[0].role"]
    }],
    InvalidJson: [request(new Req.InvalidJson({ message: "Unexpected token } in JSON" })), {
      status: 400,
      type: invalid,
      code: "invalid_json",
      says: ["Unexpected token"]
    }],
    BodyTooLarge: [request(new Req.BodyTooLarge({ limitBytes: 1024 })), {
      status: 413,
      type: invalid,
      code: "request_too_large",
      says: ["1024"]
    }],
    ModelNotFound: [request(new Req.ModelNotFound({ model: "nobody/nothing" })), {
      status: 404,
      type: invalid,
      code: "model_not_found",
      param: "model",
      says: ["nobody/nothing", "/v1/models", "routing file"]
    }],
    RouteNotFound: [request(new Req.RouteNotFound({ method: "GET", path: "/v2/x" })), {
      status: 404,
      type: invalid,
      code: "not_found",
      says: ["GET /v2/x"]
    }],
    MethodNotAllowed: [
      request(new Req.MethodNotAllowed({ method: "PUT", path: "/v1/models", allowed: ["GET", "HEAD"] })),
      {
        status: 405,
        type: invalid,
        code: "method_not_allowed",
        says: ["PUT", "/v1/models", "GET or HEAD"]
      }
    ],
    InvalidSvcToolIds: [request(new Req.InvalidSvcToolIds({ invalid: [{ id: "web", why: "not activated" }] })), {
      status: 400,
      type: invalid,
      code: "invalid_svc_tool_ids",
      param: "svc_tool_ids",
      says: ["'web' (not activated)"],
      extra: { invalid_svc_tool_ids: ["web"] }
    }],
    InvalidSvcPendingId: [request(new Req.InvalidSvcPendingId({ id: "pend_1" })), {
      status: 400,
      type: invalid,
      code: "invalid_svc_pending_id",
      param: "svc_pending_id",
      says: ["pend_1"]
    }]
  }
  table(rows)

  it("an InvalidField keeps its own code", () =>
    check([
      Req.RequestError.invalidField("model", "Missing required parameter: 'model'.", "missing_required_parameter"),
      {
        status: 400,
        type: invalid,
        code: "missing_required_parameter",
        param: "model"
      }
    ]))

  it("a body that is not an object names no param", () =>
    check([Req.RequestError.invalidField("", "The request body must be a JSON object.", "invalid_request_body"), {
      status: 400,
      type: invalid,
      code: "invalid_request_body",
      param: null
    }]))
})

describe("describeError: AuthError", () => {
  const auth = (reason: AuthError["reason"]) => new AuthError({ reason })
  const advice = "svc-gateway keys create"
  const rows: Record<AuthError["reason"]["_tag"], Row> = {
    MissingKey: [auth(new MissingKey()), {
      status: 401,
      type: "authentication_error",
      code: "missing_api_key",
      says: ["Authorization: Bearer", advice]
    }],
    InvalidKey: [auth(new InvalidKey()), {
      status: 401,
      type: "authentication_error",
      code: "invalid_api_key",
      says: [advice]
    }],
    ExpiredKey: [auth(new ExpiredKey({ expiredAt: "2025-01-02T03:04:05.000Z" })), {
      status: 401,
      type: "authentication_error",
      code: "expired_api_key",
      says: ["2025-01-02T03:04:05.000Z", advice]
    }],
    RevokedKey: [auth(new RevokedKey()), {
      status: 401,
      type: "authentication_error",
      code: "revoked_api_key",
      says: [advice]
    }],
    InvalidAdminToken: [auth(new InvalidAdminToken()), {
      status: 401,
      type: "authentication_error",
      code: "invalid_admin_token",
      says: ["GATEWAY_ADMIN_TOKEN"]
    }]
  }
  table(rows)
})

describe("describeError: ProviderError", () => {
  const provider = (reason: ProviderError["reason"]) => new ProviderError({ provider: "groq", reason })
  const upstream = "upstream_error"
  const rows: Record<ProviderError["reason"]["_tag"], Row> = {
    UpstreamStatus: [provider(new UpstreamStatus({ status: 503, message: "overloaded" })), {
      status: 502,
      type: upstream,
      code: upstream,
      says: ["groq", "503", "overloaded"]
    }],
    UpstreamUnreachable: [provider(new UpstreamUnreachable({ message: "ECONNREFUSED" })), {
      status: 502,
      type: upstream,
      code: "upstream_unreachable",
      says: ["groq", "ECONNREFUSED"]
    }],
    UpstreamBadResponse: [provider(new UpstreamBadResponse({ message: "not JSON" })), {
      status: 502,
      type: upstream,
      code: "upstream_bad_response",
      says: ["groq", "not JSON"]
    }],
    UpstreamTimeout: [provider(new UpstreamTimeout({ phase: "first_byte" })), {
      status: 504,
      type: upstream,
      code: "upstream_timeout",
      says: ["groq", "first byte"]
    }],
    ProviderUnavailable: [provider(new ProviderUnavailable({ message: "GROQ_API_KEY is not set" })), {
      status: 503,
      type: upstream,
      code: "provider_unavailable",
      says: ["groq", "GROQ_API_KEY"]
    }],
    TargetOpen: [provider(new TargetOpen({ target: "groq/llama", retryAfterMs: 12_400 })), {
      status: 503,
      type: upstream,
      code: "upstream_circuit_open",
      says: ["groq/llama", "13 s"]
    }]
  }
  table(rows)

  const statusRows: ReadonlyArray<readonly [UpstreamStatus, Expected]> = [
    [
      new UpstreamStatus({
        status: 400,
        message: "bad temperature",
        type: "invalid_request_error",
        code: "bad_param",
        param: "temperature"
      }),
      {
        status: 400,
        type: invalid,
        code: "bad_param",
        param: "temperature",
        says: ["bad temperature"]
      }
    ],
    [new UpstreamStatus({ status: 404, message: "no such model" }), {
      status: 404,
      type: invalid,
      code: null,
      says: ["no such model"]
    }],
    [new UpstreamStatus({ status: 429, message: "slow down", type: "rate_limit_error", code: null }), {
      status: 429,
      type: "rate_limit_error",
      code: null,
      says: ["slow down"]
    }],
    [new UpstreamStatus({ status: 500, message: "oops" }), {
      status: 502,
      type: upstream,
      code: upstream,
      says: ["500"]
    }]
  ]
  for (const [reason, expected] of statusRows) {
    it(`an upstream ${reason.status} becomes ${expected.status}`, () => check([provider(reason), expected]))
  }

  for (const phase of ["connect", "first_byte", "idle", "total"] as const) {
    it(`a ${phase} timeout is a 504`, () =>
      check([provider(new UpstreamTimeout({ phase })), { status: 504, type: upstream, code: "upstream_timeout" }]))
  }
})

describe("describeError: AdminError", () => {
  const rows: Record<AdminError["reason"]["_tag"], Row> = {
    NotFound: [AdminError.notFound("API key", "key_123"), {
      status: 404,
      type: invalid,
      code: "not_found",
      says: ["API key", "key_123"]
    }],
    Conflict: [new AdminError({ reason: new Conflict({ message: "name taken" }) }), {
      status: 409,
      type: invalid,
      code: "conflict",
      says: ["name taken"]
    }],
    Forbidden: [new AdminError({ reason: new Forbidden({ message: "ana@example.com is not an admin" }) }), {
      status: 403,
      type: "permission_error",
      code: "forbidden",
      says: ["ana@example.com", "not an admin"]
    }]
  }
  table(rows)
  it("NotFound built by hand reads the same", () =>
    check([new AdminError({ reason: new NotFound({ entity: "organization", id: "org_9" }) }), {
      status: 404,
      type: invalid,
      code: "not_found",
      says: ["organization", "org_9"]
    }]))
})

describe("describeError: SqlError", () => {
  const INTERNAL = "relation \"api_keys_secret\" does not exist at postgres://admin:hunter2@db.internal:5432"
  const cause = new Error(INTERNAL)
  const base = { cause, message: INTERNAL, operation: "execute" }
  const unavailable: Expected = { status: 503, type: "server_error", code: "store_unavailable", says: ["retry"] }
  const internal: Expected = { status: 500, type: "server_error", code: "internal_error" }
  const rows: Record<SqlError.SqlError["reason"]["_tag"], readonly [SqlError.SqlError["reason"], Expected]> = {
    ConnectionError: [new SqlError.ConnectionError(base), unavailable],
    AuthenticationError: [new SqlError.AuthenticationError(base), unavailable],
    LockTimeoutError: [new SqlError.LockTimeoutError(base), unavailable],
    StatementTimeoutError: [new SqlError.StatementTimeoutError(base), unavailable],
    DeadlockError: [new SqlError.DeadlockError(base), unavailable],
    SerializationError: [new SqlError.SerializationError(base), unavailable],
    SqlSyntaxError: [new SqlError.SqlSyntaxError(base), internal],
    AuthorizationError: [new SqlError.AuthorizationError(base), internal],
    UniqueViolation: [new SqlError.UniqueViolation({ ...base, constraint: "api_keys_key_hash_key" }), internal],
    ConstraintError: [new SqlError.ConstraintError(base), internal],
    UnknownError: [new SqlError.UnknownError(base), internal]
  }
  for (const [tag, [reason, expected]] of Object.entries(rows)) {
    it(`${tag} → ${expected.status}, without internals`, () => {
      const error = new SqlError.SqlError({ reason })
      check([error, expected])
      const text = JSON.stringify(describeError(error).body)
      for (const secret of ["api_keys_secret", "hunter2", "db.internal", "postgres://", "execute", "key_hash"]) {
        assert.notInclude(text, secret)
      }
    })
  }
})
