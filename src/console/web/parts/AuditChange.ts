/**
 * How an audit record reads in a table row: who made the change (an email, the admin token, the CLI),
 * what it touched, and a short summary of what changed between the values before and after
 * (`limits.rpm: none → 100`), the full values being in the row's detail.
 */
import type { AuditRecord } from "../Api.ts"
import { time } from "./Format.ts"

/** The actions the audit log records, for the filter's choice. */
export const AUDIT_ACTIONS: ReadonlyArray<string> = [
  "org.create",
  "org.update",
  "key.create",
  "key.update",
  "key.revoke",
  "svc_tool.set",
  "user.create",
  "user.update",
  "user.roles",
  "token.create",
  "token.revoke"
]

/** `ana@example.com`, `admin token` or `CLI`. */
export const actorText = (record: AuditRecord): string =>
  record.actor.kind === "admin_token"
    ? "admin token"
    : record.actor.kind === "cli"
    ? "CLI"
    : record.actor.email ?? record.actor.user_id ?? "a user"

const fieldOf = (value: unknown, field: string): unknown =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)[field]
    : undefined

/** The target's name when its values carry one (a key's, an org's, a user's email), else undefined. */
export const targetName = (record: AuditRecord): string | undefined => {
  for (const values of [record.after, record.before]) {
    const name = fieldOf(values, "name") ?? fieldOf(values, "email")
    if (typeof name === "string" && name !== "") return name
  }
  return undefined
}

/** A value as a summary says it: `none`, `yes`, a time to the minute, a short text. */
const said = (value: unknown): string => {
  if (value === null || value === undefined) return "none"
  if (typeof value === "boolean") return value ? "yes" : "no"
  if (typeof value === "string") {
    const text = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(value) ? time(value) : value
    return text.length > 40 ? `${text.slice(0, 39)}…` : text
  }
  if (Array.isArray(value) && value.every((item) => typeof item !== "object" || item === null)) {
    return value.length === 0 ? "none" : said(value.join(", "))
  }
  return said(JSON.stringify(value))
}

/** Every leaf of a record's values by its dotted path (`limits.rpm`); arrays are leaves. */
const leaves = (value: unknown, path = "", into = new Map<string, unknown>()): Map<string, unknown> => {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    for (const [name, field] of Object.entries(value)) leaves(field, path === "" ? name : `${path}.${name}`, into)
  } else if (path !== "") {
    into.set(path, value)
  }
  return into
}

/** The fields that differ between before and after, each as `path: before → after`. */
export const changedFields = (before: unknown, after: unknown): ReadonlyArray<string> => {
  const old = leaves(before)
  const now = leaves(after)
  // the target's own id is in the row already, and never changes
  const paths = [...new Set([...old.keys(), ...now.keys()])].filter((path) => path !== "id")
  return paths
    .filter((path) => JSON.stringify(old.get(path) ?? null) !== JSON.stringify(now.get(path) ?? null))
    .map((path) => `${path}: ${said(old.get(path))} → ${said(now.get(path))}`)
}

/** Three changes at most in a row; the detail has them all. */
const SHOWN = 3

/** `created 'ci'`, `revoked_at: none → 2026-11-27 12:14`, `no change`. */
export const changeSummary = (record: AuditRecord): string => {
  const name = targetName(record)
  const named = name === undefined ? "" : ` '${name}'`
  if (record.before === null && record.after !== null && record.action.endsWith(".create")) return `created${named}`
  if (record.after === null && record.before !== null) return `deleted${named}`
  const changes = changedFields(record.before, record.after)
  if (changes.length === 0) return "no change"
  const more = changes.length - SHOWN
  return `${changes.slice(0, SHOWN).join("; ")}${more > 0 ? `; and ${more} more` : ""}`
}
