/**
 * The one schema, for PostgreSQL and PGlite alike. Migrations are applied in id order, once; never edit
 * a shipped one: add the next number.
 */
import { PgMigrator } from "@effect/sql-pg"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export const Migrations = PgMigrator.layer({
  loader: PgMigrator.fromRecord({
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
    })
  })
})
