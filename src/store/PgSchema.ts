/**
 * The schema on PostgreSQL, as the migrations that built it. Applied in id order, once; never edit a
 * shipped one: add the next number, here and, in SQLite's spelling, in `SqliteSchema.ts`.
 */
import { Effect } from "effect"
import { Migrator, SqlClient } from "effect/sql"

export const PgSchema = Migrator.fromRecord({
  "0001_orgs_and_keys": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE orgs (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      created_at TIMESTAMPTZ NOT NULL DEFAULT now()
    )`
    yield* sql`CREATE TABLE api_keys (
      id TEXT PRIMARY KEY,
      org_id TEXT NOT NULL REFERENCES orgs(id),
      name TEXT NOT NULL,
      key_hash TEXT NOT NULL UNIQUE,
      prefix TEXT NOT NULL,
      created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
      expires_at TIMESTAMPTZ,
      revoked_at TIMESTAMPTZ,
      last_used_at TIMESTAMPTZ
    )`
    yield* sql`CREATE INDEX api_keys_org_id ON api_keys (org_id, created_at)`
    yield* sql`CREATE TABLE gateway_settings (
      name TEXT PRIMARY KEY,
      value TEXT NOT NULL,
      updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
    )`
  }),
  "0002_svc_tools": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // NULL: every tool activated for the org is allowed; an array: only those ids
    yield* sql`ALTER TABLE api_keys ADD COLUMN allowed_svc_tool_ids JSONB`
    yield* sql`CREATE TABLE org_svc_tools (
      org_id TEXT NOT NULL REFERENCES orgs(id),
      tool_id TEXT NOT NULL,
      activated BOOLEAN NOT NULL DEFAULT false,
      hydrate_org BOOLEAN NOT NULL DEFAULT false,
      hydrate_key_ids JSONB NOT NULL DEFAULT '[]'::jsonb,
      updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
      PRIMARY KEY (org_id, tool_id)
    )`
    yield* sql`CREATE TABLE svc_pending (
      id TEXT PRIMARY KEY,
      org_id TEXT NOT NULL,
      key_id TEXT NOT NULL,
      state JSONB NOT NULL,
      created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
      expires_at TIMESTAMPTZ NOT NULL
    )`
    yield* sql`CREATE INDEX svc_pending_expires_at ON svc_pending (expires_at)`
  }),
  "0003_request_log": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // append-only: rows are inserted once, in batches, and deleted only by retention
    yield* sql`CREATE TABLE request_log (
      id TEXT PRIMARY KEY,
      created_at TIMESTAMPTZ NOT NULL,
      org_id TEXT,
      key_id TEXT,
      requested_model TEXT,
      model TEXT,
      provider TEXT,
      status INTEGER NOT NULL,
      error_code TEXT,
      stream BOOLEAN NOT NULL,
      tags TEXT[] NOT NULL DEFAULT '{}',
      prompt_tokens INTEGER NOT NULL DEFAULT 0,
      completion_tokens INTEGER NOT NULL DEFAULT 0,
      cached_tokens INTEGER NOT NULL DEFAULT 0,
      reasoning_tokens INTEGER NOT NULL DEFAULT 0,
      svc_tools TEXT[] NOT NULL DEFAULT '{}',
      attempts INTEGER NOT NULL DEFAULT 0,
      latency_ms DOUBLE PRECISION NOT NULL,
      ttft_ms DOUBLE PRECISION,
      compression_saved_tokens INTEGER,
      user_agent TEXT,
      prompt_text TEXT,
      completion_text TEXT
    )`
    yield* sql`CREATE INDEX request_log_org_time ON request_log (org_id, created_at DESC, id DESC)`
    yield* sql`CREATE INDEX request_log_time ON request_log (created_at)`
    yield* sql`CREATE INDEX request_log_tags ON request_log USING GIN (tags)`
    // opt-in per org: prompt and completion text are stored only when set
    yield* sql`ALTER TABLE orgs ADD COLUMN log_content BOOLEAN NOT NULL DEFAULT false`
  }),
  "0004_request_log_reads": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // "show me the errors" is the log's everyday question and errors are rare: without this index a
    // newest-first page of errors walks every success in between (bench/logs-bench.ts, 1M rows: a
    // 0.01% status took ~80 ms, ~5 ms with it). Partial, so successful requests never touch it.
    yield* sql`CREATE INDEX request_log_org_errors ON request_log (org_id, created_at DESC, id DESC)
      WHERE status >= 400`
    // The planner guesses 0.5% of rows for a tag missing from its sampled most-common-elements list,
    // and then walks the time index instead of the GIN index: a rare or unknown tag read the whole
    // org (~145-290 ms at 1M rows). A larger sample keeps rare tags in that list, so tag filters use
    // the GIN index when it pays (~5 ms). Only ANALYZE gets slower (a bigger sample).
    yield* sql`ALTER TABLE request_log ALTER COLUMN tags SET STATISTICS 1000`
  }),
  "0005_request_log_sessions": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // a coding client's session (Claude Code's X-Claude-Code-Session-Id): its requests found together
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
      created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
      expires_at TIMESTAMPTZ NOT NULL,
      PRIMARY KEY (org_id, key_id, id)
    )`
    yield* sql`CREATE INDEX svc_cut_outputs_expires_at ON svc_cut_outputs (expires_at)`
  }),
  "0008_limits": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // rate limits and token budgets as JSON ({"rpm","tpm","tokens_per_day","tokens_per_month"}); NULL: none
    yield* sql`ALTER TABLE orgs ADD COLUMN limits TEXT`
    yield* sql`ALTER TABLE api_keys ADD COLUMN limits TEXT`
  }),
  "0009_request_log_tags_partial": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // Most requests carry no tag, and a GIN index holds an entry even for an empty array: 6 % of what
    // PostgreSQL spent storing a row (measured). A row without tags can never match a tag filter, so
    // the index leaves such rows out; tag filters say `tags <> '{}'` so the planner knows it applies.
    yield* sql`CREATE INDEX request_log_tags_present ON request_log USING GIN (tags) WHERE tags <> '{}'`
    yield* sql`DROP INDEX request_log_tags`
  }),
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
      period_start TIMESTAMPTZ NOT NULL,
      threshold DOUBLE PRECISION NOT NULL,
      event TEXT NOT NULL,
      created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
      attempts INTEGER NOT NULL DEFAULT 0,
      next_attempt_at TIMESTAMPTZ NOT NULL,
      delivered_at TIMESTAMPTZ,
      failed_at TIMESTAMPTZ,
      last_error TEXT
    )`
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
    // people who administer the gateway: roles per org, personal access tokens (only their SHA-256)
    yield* sql`CREATE TABLE users (
      id TEXT PRIMARY KEY,
      email TEXT NOT NULL UNIQUE,
      name TEXT NOT NULL,
      created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
      disabled_at TIMESTAMPTZ
    )`
    // org_id '' for a role over the whole gateway (owner), so the primary key holds it
    yield* sql`CREATE TABLE user_roles (
      user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      role TEXT NOT NULL,
      org_id TEXT NOT NULL,
      PRIMARY KEY (user_id, role, org_id)
    )`
    yield* sql`CREATE INDEX user_roles_org ON user_roles (org_id)`
    yield* sql`CREATE TABLE user_tokens (
      id TEXT PRIMARY KEY,
      user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      name TEXT NOT NULL,
      token_hash TEXT NOT NULL UNIQUE,
      prefix TEXT NOT NULL,
      created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
      expires_at TIMESTAMPTZ,
      revoked_at TIMESTAMPTZ
    )`
    yield* sql`CREATE INDEX user_tokens_user ON user_tokens (user_id, created_at)`
  }),
  "0016_audit_log": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // every change made through the admin API, CLI or console, written in the change's own transaction;
    // before and after are JSON text with secrets left out
    yield* sql`CREATE TABLE audit_log (
      id TEXT PRIMARY KEY,
      created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
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
    )`
    yield* sql`CREATE INDEX audit_log_created ON audit_log (created_at, id)`
    yield* sql`CREATE INDEX audit_log_org ON audit_log (org_id, created_at)`
  }),
  "0017_console_sign_in": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // a single sign-on begun and not yet finished: the PKCE verifier and nonce, and the SHA-256 of the
    // secret in the browser's cookie, so only the browser that began it can finish it
    yield* sql`CREATE TABLE console_logins (
      state TEXT PRIMARY KEY,
      code_verifier TEXT NOT NULL,
      nonce TEXT NOT NULL,
      browser_hash TEXT NOT NULL,
      created_at TIMESTAMPTZ NOT NULL DEFAULT now()
    )`
    // a console signed in by single sign-on: only the SHA-256 of the cookie's token is kept
    yield* sql`CREATE TABLE console_sessions (
      id TEXT PRIMARY KEY,
      token_hash TEXT NOT NULL UNIQUE,
      user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
      expires_at TIMESTAMPTZ NOT NULL,
      revoked_at TIMESTAMPTZ
    )`
    yield* sql`CREATE INDEX console_sessions_user ON console_sessions (user_id)`
  }),
  "0018_mcp_servers": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
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
      refreshed_at TIMESTAMPTZ,
      created_at TIMESTAMPTZ NOT NULL DEFAULT now()
    )`
    yield* sql`CREATE INDEX mcp_servers_org ON mcp_servers (org_id, created_at)`
  }),
  "0019_mcp_oauth": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // a server authorized with OAuth: its registered client and tokens, sealed; sign-ins at its
    // authorization server begun and not yet finished, bound to the browser that began them
    yield* sql`ALTER TABLE mcp_servers ADD COLUMN oauth INTEGER NOT NULL DEFAULT 0`
    yield* sql`ALTER TABLE mcp_servers ADD COLUMN oauth_sealed TEXT`
    yield* sql`ALTER TABLE mcp_servers ADD COLUMN authorized_at TIMESTAMPTZ`
    yield* sql`CREATE TABLE mcp_oauth_pending (
      state TEXT PRIMARY KEY,
      server_id TEXT NOT NULL REFERENCES mcp_servers(id) ON DELETE CASCADE,
      code_verifier TEXT NOT NULL,
      browser_hash TEXT NOT NULL,
      created_at TIMESTAMPTZ NOT NULL DEFAULT now()
    )`
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
  "0021_request_log_time_key": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // One index where there were two: the key (created_at, id) serves what the time index did
    // (retention, reads by time across orgs, a budget's sums) and what the key on id did (a replayed
    // row skipped, a request found by its id, whose time it spells: `timeOfOrderedId`). Every row
    // entered both; PostgreSQL spent 6.5 -> 5.9 us a logged row (`node bench/log-rows.ts`, rows spread
    // in time as under load; 10.9 -> 9.3 when a batch's rows shared one millisecond). Ids from before
    // they were time-ordered keep a small index of their own, which no new row enters.
    yield* sql`ALTER TABLE request_log DROP CONSTRAINT request_log_pkey`
    yield* sql`ALTER TABLE request_log ADD CONSTRAINT request_log_pkey PRIMARY KEY (created_at, id)`
    yield* sql`DROP INDEX request_log_time`
    // every id but the 27-character `req_` ones the gateway mints (whose time `timeOfOrderedId`
    // reads); `requestIdCondition` repeats the condition word for word so the planner uses the index
    yield* sql`CREATE INDEX request_log_legacy_id ON request_log (id)
      WHERE length(id) <> 27 OR substr(id, 1, 4) <> 'req_'`
  }),
  "0022_request_log_org_time_narrow": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // The org index without the id, which every logged row copied into it for the pages' tie-break
    // alone: an org's rows of one instant are few, so a page sorts them (an incremental sort over this
    // index) where the index used to. PostgreSQL spent 5.77-6.22 -> 5.36-5.60 us a logged row (`node
    // bench/log-rows.ts`, four runs each) and 8.8 -> 8.3, 11.6 -> 10.6 us a request under the bench's
    // load; a page of one org among 100 in 1,000,000 rows took 1.5 ms against 1.0-1.2.
    yield* sql`DROP INDEX request_log_org_time`
    yield* sql`CREATE INDEX request_log_org_time ON request_log (org_id, created_at)`
  })
})
