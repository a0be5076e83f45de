/**
 * RowQueue: a record taken back is the record pushed, field for field (nulls, NaN, lists, a cost or
 * none), in the order pushed, however pushes and takes interleave and past the first capacity.
 */
import { assert, describe, it } from "@effect/vitest"
import type { RequestRecord } from "../../src/logs/RequestRecord.ts"
import { RowQueue } from "../../src/logs/RowQueue.ts"
import { makeRecord, RICH } from "../utils/RequestLogHarness.ts"

/** Every field set, nullable ones too, each unlike its default. */
const full = (): RequestRecord =>
  makeRecord({
    ...RICH,
    shadowTokensSavedSafe: 11,
    shadowTokensSavedAggressive: 19,
    cost: { ...RICH.cost, cacheWrite: 7 }
  })

describe("RowQueue", () => {
  it("gives back every field of a full record and of one with every nullable field null", () => {
    const queue = new RowQueue()
    const rows = [full(), makeRecord({ ttftMs: null, cost: null, tags: [], userAgent: null, requestedModel: null })]
    for (const row of rows) queue.push(row)
    assert.strictEqual(queue.length, 2)
    assert.deepStrictEqual(queue.take(10), rows)
    assert.strictEqual(queue.length, 0)
  })

  it("keeps values the store coerces later as they are: NaN, infinities, fractions, an invalid date", () => {
    const queue = new RowQueue()
    const odd = makeRecord({
      createdAt: new Date(Number.NaN),
      status: 200.5,
      latencyMs: Number.NaN,
      ttftMs: Number.POSITIVE_INFINITY,
      promptTokens: -3,
      promptTokensSaved: Number.NaN
    })
    queue.push(odd)
    const [back] = queue.take(1)
    assert.isTrue(Number.isNaN(back!.createdAt.getTime()))
    assert.strictEqual(back!.status, 200.5)
    assert.isTrue(Number.isNaN(back!.latencyMs))
    assert.strictEqual(back!.ttftMs, Number.POSITIVE_INFINITY)
    assert.strictEqual(back!.promptTokens, -3)
    // NaN stays NaN, not NULL: only a null is a null
    assert.isTrue(Number.isNaN(back!.promptTokensSaved!))
  })

  it("takes in the order pushed across interleaved takes, wrap-around, growth and draining", () => {
    const queue = new RowQueue()
    const pushed: Array<string> = []
    const taken: Array<string> = []
    let n = 0
    const push = (count: number) => {
      for (let i = 0; i < count; i++) {
        const record = makeRecord({ id: `req_${n}`, promptTokens: n })
        n++
        queue.push(record)
        pushed.push(record.id)
      }
    }
    const take = (count: number) => {
      for (const row of queue.take(count)) {
        assert.strictEqual(row.promptTokens, Number(row.id.slice(4)))
        taken.push(row.id)
      }
    }
    push(700)
    take(500)
    push(900) // wraps past the end of the first 1,024 slots
    take(300)
    push(4000) // grows three times with the rows wrapped
    take(2000)
    push(10)
    take(100_000) // drained: the grown columns give way to small ones
    push(1500) // and grow again
    take(700)
    take(100_000)
    assert.strictEqual(queue.length, 0)
    assert.deepStrictEqual(taken, pushed)
    assert.deepStrictEqual(queue.take(5), [])
  })

  it("refuses what is not a record and stays as it was", () => {
    const queue = new RowQueue()
    queue.push(makeRecord({ id: "req_a" }))
    assert.throws(() => queue.push(null as unknown as RequestRecord))
    assert.throws(() => queue.push({ ...makeRecord(), createdAt: "yesterday" } as unknown as RequestRecord))
    assert.throws(() => queue.push({ ...makeRecord(), tags: undefined } as unknown as RequestRecord))
    queue.push(makeRecord({ id: "req_b" }))
    assert.deepStrictEqual(queue.take(10).map((row) => row.id), ["req_a", "req_b"])
  })

  it("gives back the strings it keeps once, past the bound of how many it keeps", () => {
    const queue = new RowQueue()
    // built at run time, as each request's are: distinct strings of equal text, and 5,000 distinct ones
    for (let i = 0; i < 5_000; i++) {
      queue.push(makeRecord({ id: `req_${i}`, requestedModel: ["gpt", "4o"].join("-"), userAgent: `ua/${i}` }))
    }
    const rows = queue.take(5_000)
    assert.isTrue(rows.every((row) => row.requestedModel === "gpt-4o"))
    assert.isTrue(rows.every((row, i) => row.userAgent === `ua/${i}` && row.id === `req_${i}`))
  })
})
