/**
 * The schema on the embedded store (SQLite), migration for migration the same as `PgSchema.ts`: the
 * same ids, names, tables, columns and indexes, in SQLite's spelling. Times are ISO 8601 UTC text with
 * six fractional digits (`toStoredTime`: they sort as time does), booleans 0/1, JSON and lists JSON text. Tables are STRICT, so a value of the wrong type is refused, not stored.
 * Applied in id order, once; never edit a shipped one.
 */
import { Effect } from "effect"
import { Migrator, SqlClient } from "effect/sql"
import { SQLITE_NOW_FORMAT } from "./SqlParts.ts"

/** A column default: the time of the insert, in the format the store's times are in. */
const NOW = `(strftime('${SQLITE_NOW_FORMAT}', 'now'))`

export const SqliteSchema = Migrator.fromRecord({
  "0001_orgs_and_keys": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const now = sql.literal(NOW)
    yield* sql`CREATE TABLE orgs (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      created_at TEXT NOT NULL DEFAULT ${now}
    ) STRICT`
    yield* sql`CREATE TABLE api_keys (
      id TEXT PRIMARY KEY,
      org_id TEXT NOT NULL REFERENCES orgs(id),
      name TEXT NOT NULL,
      key_hash TEXT NOT NULL UNIQUE,
      prefix TEXT NOT NULL,
      created_at TEXT NOT NULL DEFAULT ${now},
      expires_at TEXT,
      revoked_at TEXT,
      last_used_at TEXT
    ) STRICT`
    yield* sql`CREATE INDEX api_keys_org_id ON api_keys (org_id, created_at)`
    yield* sql`CREATE TABLE gateway_settings (
      name TEXT PRIMARY KEY,
      value TEXT NOT NULL,
      updated_at TEXT NOT NULL DEFAULT ${now}
    ) STRICT`
  }),
  "0002_svc_tools": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const now = sql.literal(NOW)
    // NULL: every tool activated for the org is allowed; a JSON array: only those ids
    yield* sql`ALTER TABLE api_keys ADD COLUMN allowed_svc_tool_ids TEXT`
    yield* sql`CREATE TABLE org_svc_tools (
      org_id TEXT NOT NULL REFERENCES orgs(id),
      tool_id TEXT NOT NULL,
      activated INTEGER NOT NULL DEFAULT 0,
      hydrate_org INTEGER NOT NULL DEFAULT 0,
      hydrate_key_ids TEXT NOT NULL DEFAULT '[]',
      updated_at TEXT NOT NULL DEFAULT ${now},
      PRIMARY KEY (org_id, tool_id)
    ) STRICT`
    yield* sql`CREATE TABLE svc_pending (
      id TEXT PRIMARY KEY,
      org_id TEXT NOT NULL,
      key_id TEXT NOT NULL,
      state TEXT NOT NULL,
      created_at TEXT NOT NULL DEFAULT ${now},
      expires_at TEXT NOT NULL
    ) STRICT`
    yield* sql`CREATE INDEX svc_pending_expires_at ON svc_pending (expires_at)`
  }),
  "0003_request_log": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // append-only: rows are inserted once, in batches, and deleted only by retention
    yield* sql`CREATE TABLE request_log (
      id TEXT PRIMARY KEY,
      created_at TEXT NOT NULL,
      org_id TEXT,
      key_id TEXT,
      requested_model TEXT,
      model TEXT,
      provider TEXT,
      status INTEGER NOT NULL,
      error_code TEXT,
      stream INTEGER NOT NULL,
      tags TEXT NOT NULL DEFAULT '[]',
      prompt_tokens INTEGER NOT NULL DEFAULT 0,
      completion_tokens INTEGER NOT NULL DEFAULT 0,
      cached_tokens INTEGER NOT NULL DEFAULT 0,
      reasoning_tokens INTEGER NOT NULL DEFAULT 0,
      svc_tools TEXT NOT NULL DEFAULT '[]',
      attempts INTEGER NOT NULL DEFAULT 0,
      latency_ms REAL NOT NULL,
      ttft_ms REAL,
      compression_saved_tokens INTEGER,
      user_agent TEXT,
      prompt_text TEXT,
      completion_text TEXT
    ) STRICT`
    yield* sql`CREATE INDEX request_log_org_time ON request_log (org_id, created_at DESC, id DESC)`
    yield* sql`CREATE INDEX request_log_time ON request_log (created_at)`
    // no index on tags: SQLite has no inverted index; a tag filter reads the org's rows in the range
    // opt-in per org: prompt and completion text are stored only when set
    yield* sql`ALTER TABLE orgs ADD COLUMN log_content INTEGER NOT NULL DEFAULT 0`
  }),
  "0004_request_log_reads": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // errors are rare: a newest-first page of them should not walk every success in between
    yield* sql`CREATE INDEX request_log_org_errors ON request_log (org_id, created_at DESC, id DESC)
      WHERE status >= 400`
  }),
  "0005_request_log_sessions": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`ALTER TABLE request_log ADD COLUMN session_id TEXT`
    yield* sql`CREATE INDEX request_log_org_session ON request_log (org_id, session_id, created_at DESC, id DESC)
      WHERE session_id IS NOT NULL`
  }),
  "0006_compression": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // NULL: the gateway's default (GATEWAY_COMPRESSION)
    yield* sql`ALTER TABLE orgs ADD COLUMN compression TEXT`
    // the placeholder column of 0003, named for what it now holds: o200k tokens saved on the wire
    yield* sql`ALTER TABLE request_log RENAME COLUMN compression_saved_tokens TO prompt_tokens_saved`
    yield* sql`ALTER TABLE request_log ADD COLUMN compression_level TEXT`
    // the saving priced as a bill prices it: cache reads at a tenth, in fresh-input tokens
    yield* sql`ALTER TABLE request_log ADD COLUMN prompt_tokens_saved_net INTEGER`
    // shadow: what each level would have saved
    yield* sql`ALTER TABLE request_log ADD COLUMN shadow_tokens_saved_safe INTEGER`
    yield* sql`ALTER TABLE request_log ADD COLUMN shadow_tokens_saved_aggressive INTEGER`
  }),
  "0007_cut_outputs": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // what aggressive compression cut from a caller's tool results, for svc_expand_output, until it expires
    yield* sql`CREATE TABLE svc_cut_outputs (
      org_id TEXT NOT NULL,
      key_id TEXT NOT NULL,
      id TEXT NOT NULL,
      text TEXT NOT NULL,
      created_at TEXT NOT NULL DEFAULT ${sql.literal(NOW)},
      expires_at TEXT NOT NULL,
      PRIMARY KEY (org_id, key_id, id)
    ) STRICT`
    yield* sql`CREATE INDEX svc_cut_outputs_expires_at ON svc_cut_outputs (expires_at)`
  }),
  "0008_limits": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // rate limits and token budgets as JSON ({"rpm","tpm","tokens_per_day","tokens_per_month"}); NULL: none
    yield* sql`ALTER TABLE orgs ADD COLUMN limits TEXT`
    yield* sql`ALTER TABLE api_keys ADD COLUMN limits TEXT`
  }),
  // PostgreSQL's GIN index on tags made partial; SQLite keeps tags as JSON text, with no such index
  "0009_request_log_tags_partial": Effect.void,
  "0010_key_descriptions": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // what a key is for, in the admin's words; NULL: none given
    yield* sql`ALTER TABLE api_keys ADD COLUMN description TEXT`
  }),
  "0011_request_log_kind": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // what was asked: NULL for a completion (nearly every row, and every row before this), else
    // 'count_tokens'; a nullable column with no default costs an existing table nothing to add
    yield* sql`ALTER TABLE request_log ADD COLUMN kind TEXT`
  }),
  "0012_request_log_cost": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // what each request cost, whole micro-dollars per part (prices/Cost.ts): integers add up exactly;
    // NULL when nothing was billed or a price was unknown
    yield* sql`ALTER TABLE request_log ADD COLUMN cost_input INTEGER`
    yield* sql`ALTER TABLE request_log ADD COLUMN cost_cached_input INTEGER`
    yield* sql`ALTER TABLE request_log ADD COLUMN cost_cache_write INTEGER`
    yield* sql`ALTER TABLE request_log ADD COLUMN cost_output INTEGER`
  }),
  "0013_budget_alerts": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const now = sql.literal(NOW)
    // the org's budget alerts as JSON ({"webhook_url","thresholds"}); NULL: none
    yield* sql`ALTER TABLE orgs ADD COLUMN alerts TEXT`
    // one row per threshold crossed, per key or org and budget period: the unique index makes it once
    // however many instances saw the crossing; the row then tracks the webhook's delivery
    yield* sql`CREATE TABLE budget_alerts (
      id TEXT PRIMARY KEY,
      org_id TEXT NOT NULL REFERENCES orgs(id),
      key_id TEXT,
      scope_id TEXT NOT NULL,
      period TEXT NOT NULL,
      period_start TEXT NOT NULL,
      threshold REAL NOT NULL,
      event TEXT NOT NULL,
      created_at TEXT NOT NULL DEFAULT ${now},
      attempts INTEGER NOT NULL DEFAULT 0,
      next_attempt_at TEXT NOT NULL,
      delivered_at TEXT,
      failed_at TEXT,
      last_error TEXT
    ) STRICT`
    yield* sql`CREATE UNIQUE INDEX budget_alerts_once ON budget_alerts (scope_id, period, period_start, threshold)`
    yield* sql`CREATE INDEX budget_alerts_org ON budget_alerts (org_id, created_at)`
    yield* sql`CREATE INDEX budget_alerts_due ON budget_alerts (next_attempt_at)
      WHERE delivered_at IS NULL AND failed_at IS NULL`
  }),
  "0014_request_log_saved_usd": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // what compression saved in micro-dollars, net of prompt caching (compression/SavedDollars.ts); NULL
    // without a level, with an unknown price, or when it saved nothing
    yield* sql`ALTER TABLE request_log ADD COLUMN compression_saved_micro INTEGER`
  }),
  "0015_users": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const now = sql.literal(NOW)
    // people who administer the gateway: roles per org, personal access tokens (only their SHA-256)
    yield* sql`CREATE TABLE users (
      id TEXT PRIMARY KEY,
      email TEXT NOT NULL UNIQUE,
      name TEXT NOT NULL,
      created_at TEXT NOT NULL DEFAULT ${now},
      disabled_at TEXT
    ) STRICT`
    // org_id '' for a role over the whole gateway (owner), so the primary key holds it
    yield* sql`CREATE TABLE user_roles (
      user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      role TEXT NOT NULL,
      org_id TEXT NOT NULL,
      PRIMARY KEY (user_id, role, org_id)
    ) STRICT`
    yield* sql`CREATE INDEX user_roles_org ON user_roles (org_id)`
    yield* sql`CREATE TABLE user_tokens (
      id TEXT PRIMARY KEY,
      user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      name TEXT NOT NULL,
      token_hash TEXT NOT NULL UNIQUE,
      prefix TEXT NOT NULL,
      created_at TEXT NOT NULL DEFAULT ${now},
      expires_at TEXT,
      revoked_at TEXT
    ) STRICT`
    yield* sql`CREATE INDEX user_tokens_user ON user_tokens (user_id, created_at)`
  }),
  "0016_audit_log": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const now = sql.literal(NOW)
    // every change made through the admin API, CLI or console, written in the change's own transaction;
    // before and after are JSON text with secrets left out
    yield* sql`CREATE TABLE audit_log (
      id TEXT PRIMARY KEY,
      created_at TEXT NOT NULL DEFAULT ${now},
      actor_kind TEXT NOT NULL,
      actor_user_id TEXT,
      actor_email TEXT,
      actor_token_id TEXT,
      action TEXT NOT NULL,
      target_kind TEXT NOT NULL,
      target_id TEXT,
      org_id TEXT,
      before TEXT,
      after TEXT,
      request_id TEXT,
      address TEXT
    ) STRICT`
    yield* sql`CREATE INDEX audit_log_created ON audit_log (created_at, id)`
    yield* sql`CREATE INDEX audit_log_org ON audit_log (org_id, created_at)`
  }),
  "0017_console_sign_in": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const now = sql.literal(NOW)
    // a single sign-on begun and not yet finished: the PKCE verifier and nonce, and the SHA-256 of the
    // secret in the browser's cookie, so only the browser that began it can finish it
    yield* sql`CREATE TABLE console_logins (
      state TEXT PRIMARY KEY,
      code_verifier TEXT NOT NULL,
      nonce TEXT NOT NULL,
      browser_hash TEXT NOT NULL,
      created_at TEXT NOT NULL DEFAULT ${now}
    ) STRICT`
    // a console signed in by single sign-on: only the SHA-256 of the cookie's token is kept
    yield* sql`CREATE TABLE console_sessions (
      id TEXT PRIMARY KEY,
      token_hash TEXT NOT NULL UNIQUE,
      user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      created_at TEXT NOT NULL DEFAULT ${now},
      expires_at TEXT NOT NULL,
      revoked_at TEXT
    ) STRICT`
    yield* sql`CREATE INDEX console_sessions_user ON console_sessions (user_id)`
  }),
  "0018_mcp_servers": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const now = sql.literal(NOW)
    // remote MCP servers an org registered: their headers sealed (SecretSeal), their last tool list kept so
    // the tools stay offered (and fail as tool errors) while the server is down; names are the gateway's
    // own (they name tools), so unique across orgs
    yield* sql`CREATE TABLE mcp_servers (
      id TEXT PRIMARY KEY,
      org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
      name TEXT NOT NULL UNIQUE,
      url TEXT NOT NULL,
      headers_sealed TEXT,
      header_names TEXT NOT NULL DEFAULT '[]',
      tools TEXT NOT NULL DEFAULT '[]',
      rejected TEXT NOT NULL DEFAULT '[]',
      last_error TEXT,
      refreshed_at TEXT,
      created_at TEXT NOT NULL DEFAULT ${now}
    ) STRICT`
    yield* sql`CREATE INDEX mcp_servers_org ON mcp_servers (org_id, created_at)`
  }),
  "0019_mcp_oauth": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const now = sql.literal(NOW)
    // a server authorized with OAuth: its registered client and tokens, sealed; sign-ins at its
    // authorization server begun and not yet finished, bound to the browser that began them
    yield* sql`ALTER TABLE mcp_servers ADD COLUMN oauth INTEGER NOT NULL DEFAULT 0`
    yield* sql`ALTER TABLE mcp_servers ADD COLUMN oauth_sealed TEXT`
    yield* sql`ALTER TABLE mcp_servers ADD COLUMN authorized_at TEXT`
    yield* sql`CREATE TABLE mcp_oauth_pending (
      state TEXT PRIMARY KEY,
      server_id TEXT NOT NULL REFERENCES mcp_servers(id) ON DELETE CASCADE,
      code_verifier TEXT NOT NULL,
      browser_hash TEXT NOT NULL,
      created_at TEXT NOT NULL DEFAULT ${now}
    ) STRICT`
  }),
  "0020_request_log_ascending": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // The same indexes in ascending order, read backwards for newest-first pages. Rows arrive in time
    // order, so a descending index took every insert at the left of the org's range: no fast path to
    // the last leaf, half-empty pages at each split. Ascending, PostgreSQL spent 8.5 -> 7.1 us a
    // logged row (500-row batches).
    yield* sql`DROP INDEX request_log_org_time`
    yield* sql`CREATE INDEX request_log_org_time ON request_log (org_id, created_at, id)`
    yield* sql`DROP INDEX request_log_org_errors`
    yield* sql`CREATE INDEX request_log_org_errors ON request_log (org_id, created_at, id) WHERE status >= 400`
    yield* sql`DROP INDEX request_log_org_session`
    yield* sql`CREATE INDEX request_log_org_session ON request_log (org_id, session_id, created_at, id)
      WHERE session_id IS NOT NULL`
  }),
  // PostgreSQL's key becomes (created_at, id) here, in place of its key on id and its time index.
  // SQLite keeps both: its key cannot change without copying the table, and its reads find a request
  // by id or by time either way (`requestIdCondition`).
  "0021_request_log_time_key": Effect.void,
  // PostgreSQL's org index drops its id here. SQLite keeps it: it inserts on the event loop either way,
  // and it has no incremental sort to order a page's ties by id.
  "0022_request_log_org_time_narrow": Effect.void
})
