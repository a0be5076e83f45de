/**
 * A change made through the admin API, recorded: `audited` runs the change and writes its audit record
 * in one transaction (the services' statements join it: `effect/sql` keeps the transaction's connection
 * for the fiber), so the change and its record are stored together or not at all. The record names the
 * caller (`CurrentPrincipal`), the request's id (`x-request-id` when sent) and address, and the values
 * before and after the change.
 */
import { Effect, Option } from "effect"
import { HttpServerRequest } from "effect/http"
import { SqlClient } from "effect/sql"
import { Audit } from "../audit/Audit.ts"
import { CurrentPrincipal } from "../kernel/Principal.ts"

export interface AuditSpec<A> {
  readonly action: string
  readonly targetKind: string
  /** The target's id, from the change's result when it made the target. */
  readonly targetId: string | ((result: A) => string)
  readonly orgId: string | null | ((result: A) => string | null)
  /** What the target was before; undefined for a creation. */
  readonly before?: Effect.Effect<unknown, unknown> | undefined
}

const valueOf = <A, V>(value: V | ((result: A) => V), result: A): V =>
  typeof value === "function" ? (value as (result: A) => V)(result) : value

/** `audited` over the store's client and the audit log, taken once when a handler group is built. */
export const makeAudited = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const audit = yield* Audit
  return <A, E, R>(spec: AuditSpec<A>, change: Effect.Effect<A, E, R>) => auditedWith(sql, audit, spec, change)
})

const auditedWith = <A, E, R>(
  sql: SqlClient.SqlClient,
  audit: Audit["Service"],
  spec: AuditSpec<A>,
  change: Effect.Effect<A, E, R>
) =>
  Effect.gen(function*() {
    const principal = yield* Effect.service(CurrentPrincipal)
    const request = yield* Effect.serviceOption(HttpServerRequest.HttpServerRequest)
    const requestId = Option.match(request, {
      onNone: () => null,
      onSome: (r) => r.headers["x-request-id"] ?? null
    })
    const address = Option.flatMap(request, (r) => r.remoteAddress).pipe(Option.getOrNull)
    return yield* sql.withTransaction(Effect.gen(function*() {
      const before = spec.before === undefined ? null : yield* Effect.orElseSucceed(spec.before, () => null)
      const result = yield* change
      yield* audit.record({
        principal,
        action: spec.action,
        targetKind: spec.targetKind,
        targetId: valueOf(spec.targetId, result),
        orgId: valueOf(spec.orgId, result),
        before,
        after: result,
        requestId,
        address
      })
      return result
    }))
  })
