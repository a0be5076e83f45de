/**
 * A change and its audit record are one transaction: when the record cannot be written the change is
 * undone, and when the change fails no record is left. Runs on the embedded store and, in CI, on
 * PostgreSQL (a schema of its own).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { Audit } from "../../src/audit/Audit.ts"
import { makeAudited } from "../../src/http/Audited.ts"
import { ADMIN_TOKEN, CurrentPrincipal } from "../../src/kernel/Principal.ts"
import { Orgs } from "../../src/orgs/Orgs.ts"
import { FreshStore } from "../utils/TestStore.ts"

/** The audit log whose writes fail, as a store refusing them would. */
const FailingAudit = Layer.effect(
  Audit,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return Audit.of({
      list: () => Effect.succeed([]),
      record: () => sql`INSERT INTO no_such_table VALUES (1)`.pipe(Effect.asVoid)
    })
  })
)

const orgNames = Effect.gen(function*() {
  return (yield* (yield* Orgs).list).map((org) => org.name)
})

describe("audited changes", () => {
  it.effect("the record written with the change", () =>
    Effect.gen(function*() {
      const audited = yield* makeAudited
      const orgs = yield* Orgs
      const org = yield* audited(
        { action: "org.create", targetKind: "org", targetId: (o: { id: string }) => o.id, orgId: (o) => o.id },
        orgs.create("audited-org")
      )
      const [record] = yield* (yield* Audit).list({ limit: 10 })
      assert.strictEqual(record?.action, "org.create")
      assert.strictEqual(record?.target.id, org.id)
      assert.strictEqual(record?.actor.kind, "admin_token")
      assert.deepStrictEqual((record?.after as { name: string }).name, "audited-org")
    }).pipe(
      Effect.provideService(CurrentPrincipal, ADMIN_TOKEN),
      Effect.provide(Layer.mergeAll(Orgs.layer, Audit.layerRecords).pipe(Layer.provideMerge(FreshStore())))
    ))

  it.effect("a record that cannot be written undoes the change", () =>
    Effect.gen(function*() {
      const audited = yield* makeAudited
      const orgs = yield* Orgs
      const result = yield* Effect.exit(audited(
        { action: "org.create", targetKind: "org", targetId: (o: { id: string }) => o.id, orgId: null },
        orgs.create("never-stored")
      ))
      assert.isTrue(result._tag === "Failure")
      assert.notInclude(yield* orgNames, "never-stored")
    }).pipe(
      Effect.provideService(CurrentPrincipal, ADMIN_TOKEN),
      Effect.provide(Layer.mergeAll(Orgs.layer, FailingAudit).pipe(Layer.provideMerge(FreshStore())))
    ))

  it.effect("a change that fails half-way leaves neither its writes nor a record", () =>
    Effect.gen(function*() {
      const audited = yield* makeAudited
      const orgs = yield* Orgs
      const result = yield* Effect.exit(audited(
        { action: "org.create", targetKind: "org", targetId: "org_x", orgId: null },
        Effect.andThen(orgs.create("half-done"), Effect.fail("then it failed"))
      ))
      assert.isTrue(result._tag === "Failure")
      assert.notInclude(yield* orgNames, "half-done")
      assert.deepStrictEqual(yield* (yield* Audit).list({ limit: 10 }), [])
    }).pipe(
      Effect.provideService(CurrentPrincipal, ADMIN_TOKEN),
      Effect.provide(Layer.mergeAll(Orgs.layer, Audit.layerRecords).pipe(Layer.provideMerge(FreshStore())))
    ))
})
