/**
 * The retry and failover rules (README, "Retries and failover") on scripted targets and the test clock:
 * which failures retry the same target and after how long, which move on at once, which reach the
 * client, how many calls each target gets; and the circuit breaker that skips a failing target.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Layer, Random } from "effect"
import { CircuitBreaker } from "effect/persistence"
import { TestClock } from "effect/testing"
import { type FailoverMetrics, type RetryRules, withFailover } from "../../../src/core/Failover.ts"
import { TargetBreaker } from "../../../src/core/TargetBreaker.ts"
import { Metrics } from "../../../src/observability/Metrics.ts"
import type { Provider } from "../../../src/providers/Provider.ts"
import {
  ProviderError,
  UpstreamStatus,
  UpstreamTimeout,
  UpstreamUnreachable
} from "../../../src/providers/ProviderError.ts"
import type { Target } from "../../../src/providers/Providers.ts"

const target = (name: string): Target => ({
  address: `${name}/model`,
  modelId: "model",
  provider: { name } as Provider
})
const primary = target("primary")
const backup = target("backup")

const status = (provider: string, code: number, retryAfterMs?: number) =>
  new ProviderError({
    provider,
    reason: new UpstreamStatus({
      status: code,
      message: `status ${code}`,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs })
    })
  })

type Script = Array<ProviderError | "ok">

/** Targets answering from their scripts in turn ("ok": an answer naming the target), counting calls. */
const scripted = (scripts: Record<string, Script>) => {
  const calls: Array<string> = []
  const attempt = (t: Target) =>
    Effect.suspend(() => {
      calls.push(t.provider.name)
      const next = scripts[t.provider.name]?.shift()
      if (next === undefined) return Effect.die(`no script left for ${t.provider.name}`)
      return next === "ok" ? Effect.succeed(`from ${t.provider.name}`) : Effect.fail(next)
    })
  return { attempt, calls }
}

const rules: RetryRules = { retries: 2, backoffMs: 100, retryAfterMaxMs: 10_000, deadlineMs: 30_000 }

const counted = () => {
  const seen = {
    errors: 0,
    retries: [] as Array<string>,
    failovers: [] as Array<string>,
    rejected: [] as Array<string>
  }
  const metrics: FailoverMetrics = {
    providerError: () => void seen.errors++,
    retry: (t) => void seen.retries.push(t),
    failover: (from, to) => void seen.failovers.push(`${from}>${to}`),
    credentialsRejected: (p) => void seen.rejected.push(p)
  }
  return { metrics, seen }
}

describe("withFailover: one target's retries", () => {
  it.effect("503 then an answer: the same target again after a backoff between half and all of the first", () =>
    Effect.gen(function*() {
      const { attempt, calls } = scripted({ primary: [status("primary", 503), "ok"] })
      const { metrics, seen } = counted()
      const fiber = yield* Effect.forkChild(withFailover([primary, backup], attempt, { rules, metrics }))
      yield* TestClock.adjust("49 millis")
      assert.deepStrictEqual(calls, ["primary"], "no retry before half the backoff")
      yield* TestClock.adjust("51 millis")
      const answered = yield* Fiber.join(fiber)
      assert.deepStrictEqual(calls, ["primary", "primary"])
      assert.strictEqual(answered.value, "from primary")
      assert.strictEqual(answered.attempts, 2)
      assert.deepStrictEqual(seen.retries, ["primary/model"])
      assert.strictEqual(seen.errors, 1)
    }))

  for (const code of [429, 500, 502, 503, 504, 529]) {
    it.effect(`${code} is retried ${rules.retries} times, then the next target`, () =>
      Effect.gen(function*() {
        const { attempt, calls } = scripted({
          primary: [status("primary", code), status("primary", code), status("primary", code)],
          backup: ["ok"]
        })
        const { metrics, seen } = counted()
        const fiber = yield* Effect.forkChild(withFailover([primary, backup], attempt, { rules, metrics }))
        yield* TestClock.adjust("1 second")
        const answered = yield* Fiber.join(fiber)
        assert.deepStrictEqual(calls, ["primary", "primary", "primary", "backup"])
        assert.strictEqual(answered.attempts, 4)
        assert.strictEqual(answered.target, backup)
        assert.deepStrictEqual(seen.failovers, ["primary/model>backup/model"])
        assert.strictEqual(seen.retries.length, 2)
      }))
  }

  it.effect("Retry-After is waited for, not the backoff", () =>
    Effect.gen(function*() {
      const { attempt, calls } = scripted({ primary: [status("primary", 429, 5_000), "ok"] })
      const fiber = yield* Effect.forkChild(withFailover([primary], attempt, { rules }))
      yield* TestClock.adjust("4999 millis")
      assert.deepStrictEqual(calls, ["primary"])
      yield* TestClock.adjust("1 millis")
      assert.strictEqual((yield* Fiber.join(fiber)).attempts, 2)
    }))

  it.effect("a Retry-After past the cap moves to the next target at once", () =>
    Effect.gen(function*() {
      const { attempt, calls } = scripted({ primary: [status("primary", 429, 60_000)], backup: ["ok"] })
      const answered = yield* withFailover([primary, backup], attempt, { rules })
      assert.deepStrictEqual(calls, ["primary", "backup"])
      assert.strictEqual(answered.attempts, 2)
    }))

  it.effect("a Retry-After past the cap on the last target: its error, without waiting", () =>
    Effect.gen(function*() {
      const { attempt, calls } = scripted({ primary: [status("primary", 503, 60_000)] })
      const error = yield* Effect.flip(withFailover([primary], attempt, { rules }))
      assert.deepStrictEqual(calls, ["primary"])
      assert.strictEqual(error.reason._tag === "UpstreamStatus" ? error.reason.status : 0, 503)
    }))

  it.effect("no wait ends past the deadline: the retries stop there", () =>
    Effect.gen(function*() {
      const { attempt, calls } = scripted({
        primary: [status("primary", 503, 200), status("primary", 503, 200)],
        backup: ["ok"]
      })
      const fiber = yield* Effect.forkChild(
        withFailover([primary, backup], attempt, { rules: { ...rules, deadlineMs: 300 } })
      )
      yield* TestClock.adjust("200 millis")
      const answered = yield* Fiber.join(fiber)
      // the second wait would end at 400 ms, past the 300 ms deadline
      assert.deepStrictEqual(calls, ["primary", "primary", "backup"])
      assert.strictEqual(answered.attempts, 3)
    }))

  // each wait is drawn between half its backoff and all of it: at the low end (a draw of 0) the first
  // waits 50 ms and the second 100 ms, so the third call comes 150 ms after the first, not before
  const lowestDraw = Effect.provideService(Random.Random, { nextIntUnsafe: () => 0, nextDoubleUnsafe: () => 0 })

  it.effect("the backoff doubles: the second retry waits at least 100 ms after the first", () =>
    Effect.gen(function*() {
      const { attempt, calls } = scripted({ primary: [status("primary", 500), status("primary", 500), "ok"] })
      const fiber = yield* Effect.forkChild(withFailover([primary], attempt, { rules }).pipe(lowestDraw))
      yield* TestClock.adjust("50 millis")
      assert.deepStrictEqual(calls, ["primary", "primary"])
      yield* TestClock.adjust("99 millis")
      assert.deepStrictEqual(calls, ["primary", "primary"], "the second backoff is at least 100 ms")
      yield* TestClock.adjust("1 millis")
      assert.strictEqual((yield* Fiber.join(fiber)).attempts, 3)
    }))
})

describe("withFailover: failures that move on at once, or reach the client", () => {
  const atOnce: ReadonlyArray<readonly [string, ProviderError]> = [
    [
      "connection refused",
      new ProviderError({ provider: "primary", reason: new UpstreamUnreachable({ message: "ECONNREFUSED" }) })
    ],
    [
      "first-byte timeout",
      new ProviderError({ provider: "primary", reason: new UpstreamTimeout({ phase: "first_byte" }) })
    ],
    ["501", status("primary", 501)]
  ]
  for (const [name, error] of atOnce) {
    it.effect(`${name}: the next target, no retry, no wait`, () =>
      Effect.gen(function*() {
        const { attempt, calls } = scripted({ primary: [error], backup: ["ok"] })
        const answered = yield* withFailover([primary, backup], attempt, { rules })
        assert.deepStrictEqual(calls, ["primary", "backup"])
        assert.strictEqual(answered.value, "from backup")
      }))
  }

  for (const code of [401, 403]) {
    it.effect(`${code} (the gateway's own credentials): the next target, counted and logged`, () =>
      Effect.gen(function*() {
        const { attempt, calls } = scripted({ primary: [status("primary", code)], backup: ["ok"] })
        const { metrics, seen } = counted()
        const answered = yield* withFailover([primary, backup], attempt, { rules, metrics })
        assert.deepStrictEqual(calls, ["primary", "backup"])
        assert.strictEqual(answered.attempts, 2)
        assert.deepStrictEqual(seen.rejected, ["primary"])
      }))
  }

  for (const code of [400, 404, 413, 422]) {
    it.effect(`${code} reaches the client: never retried, no failover`, () =>
      Effect.gen(function*() {
        const { attempt, calls } = scripted({ primary: [status("primary", code)], backup: ["ok"] })
        const error = yield* Effect.flip(withFailover([primary, backup], attempt, { rules }))
        assert.deepStrictEqual(calls, ["primary"])
        assert.strictEqual(error.reason._tag === "UpstreamStatus" ? error.reason.status : 0, code)
      }))
  }
})

describe("the circuit breaker per target", () => {
  const breakers = TargetBreaker.layer({ failures: 3, cooldown: Duration.seconds(30) }).pipe(
    Layer.provide(CircuitBreaker.layerStoreMemory()),
    Layer.provideMerge(Metrics.layer)
  )

  it.effect("after 3 failures in a row the target is skipped for the cool-down, then one probe goes through", () =>
    Effect.gen(function*() {
      const { guard, states } = yield* TargetBreaker
      const metrics = yield* Metrics
      const noRetry = { rules: { ...rules, retries: 0 }, guard }
      const down = () => status("primary", 503)
      const { attempt, calls } = scripted({
        primary: [down(), down(), down(), "ok"],
        backup: ["ok", "ok", "ok", "ok", "ok"]
      })
      for (let i = 0; i < 3; i++) yield* withFailover([primary, backup], attempt, noRetry)
      assert.deepStrictEqual(calls.filter((c) => c === "primary").length, 3)
      yield* Effect.yieldNow
      assert.deepStrictEqual(states(), [{ target: "primary/model", state: "open" }])
      assert.include(metrics.render(), `svc_gateway_circuit_state{target="primary/model"} 2`)

      // open: the backup answers, the primary is not called
      const skipped = yield* withFailover([primary, backup], attempt, noRetry)
      assert.strictEqual(skipped.target, backup)
      assert.strictEqual(skipped.attempts, 1, "a skipped target is not a call")
      assert.strictEqual(calls.filter((c) => c === "primary").length, 3)

      // alone, an open target is a clear error, with when to come back
      const error = yield* Effect.flip(withFailover([primary], attempt, noRetry))
      assert.strictEqual(error.reason._tag, "TargetOpen")
      assert.isAbove(error.reason._tag === "TargetOpen" ? error.reason.retryAfterMs : 0, 29_000)

      yield* TestClock.adjust("30 seconds")
      const probed = yield* withFailover([primary, backup], attempt, noRetry)
      assert.strictEqual(probed.target, primary, "the probe goes to the primary and its answer closes the circuit")
      yield* Effect.yieldNow
      assert.deepStrictEqual(states(), [{ target: "primary/model", state: "closed" }])
      assert.include(metrics.render(), `svc_gateway_circuit_state{target="primary/model"} 0`)
    }).pipe(Effect.provide(breakers)))

  it.effect("a client error is the upstream working: it does not count toward opening", () =>
    Effect.gen(function*() {
      const { guard, states } = yield* TargetBreaker
      const noRetry = { rules: { ...rules, retries: 0 }, guard }
      const { attempt } = scripted({
        primary: [status("primary", 503), status("primary", 503), status("primary", 400), status("primary", 503), "ok"]
      })
      for (let i = 0; i < 4; i++) yield* Effect.flip(withFailover([primary], attempt, noRetry))
      const answered = yield* withFailover([primary], attempt, noRetry)
      assert.strictEqual(answered.value, "from primary")
      assert.deepStrictEqual(states(), [])
    }).pipe(Effect.provide(breakers)))

  /** The memory store, counting the calls the breaker makes to it. */
  const countingStore = () => {
    const seen = { admits: 0, records: 0 }
    const layer = Layer.effect(
      CircuitBreaker.CircuitBreakerStore,
      Effect.map(Effect.service(CircuitBreaker.CircuitBreakerStore), (store) =>
        CircuitBreaker.CircuitBreakerStore.of({
          ...store,
          admit: (key) => Effect.andThen(Effect.sync(() => void seen.admits++), store.admit(key)),
          record: (options) => Effect.andThen(Effect.sync(() => void seen.records++), store.record(options))
        }))
    ).pipe(Layer.provide(CircuitBreaker.layerStoreMemory()))
    return { layer, seen }
  }

  it.effect("a healthy target's calls do not ask the store; from its first failure every call does, until one succeeds", () => {
    const { layer, seen } = countingStore()
    return Effect.gen(function*() {
      const { guard } = yield* TargetBreaker
      const noRetry = { rules: { ...rules, retries: 0 }, guard }
      const { attempt } = scripted({ primary: ["ok", "ok", status("primary", 503), "ok", "ok", "ok"] })
      yield* withFailover([primary], attempt, noRetry)
      yield* withFailover([primary], attempt, noRetry)
      assert.deepStrictEqual(seen, { admits: 0, records: 0 }, "closed, streak 0: nothing to admit or record")
      yield* Effect.flip(withFailover([primary], attempt, noRetry))
      assert.deepStrictEqual(seen, { admits: 1, records: 1 }, "the failure is recorded")
      yield* withFailover([primary], attempt, noRetry)
      assert.deepStrictEqual(
        seen,
        { admits: 2, records: 2 },
        "the next call goes through the breaker and resets the streak"
      )
      yield* withFailover([primary], attempt, noRetry)
      yield* withFailover([primary], attempt, noRetry)
      assert.deepStrictEqual(seen, { admits: 2, records: 2 }, "healthy again")
    }).pipe(Effect.provide(
      TargetBreaker.layer({ failures: 3, cooldown: Duration.seconds(30) }).pipe(
        Layer.provide(layer),
        Layer.provideMerge(Metrics.layer)
      )
    ))
  })

  it.effect("failures with successes between them do not add up to an opening", () =>
    Effect.gen(function*() {
      const { guard, states } = yield* TargetBreaker
      const noRetry = { rules: { ...rules, retries: 0 }, guard }
      const down = () => status("primary", 503)
      const { attempt } = scripted({ primary: [down(), down(), "ok", down(), down(), "ok", down(), down(), "ok"] })
      for (let i = 0; i < 9; i++) yield* Effect.exit(withFailover([primary], attempt, noRetry))
      yield* Effect.yieldNow
      assert.deepStrictEqual(states(), [])
    }).pipe(Effect.provide(breakers)))

  it.effect("a shared store (Redis) is asked on every call: another instance may have opened the circuit", () => {
    const { layer, seen } = countingStore()
    return Effect.gen(function*() {
      const { guard } = yield* TargetBreaker
      const noRetry = { rules: { ...rules, retries: 0 }, guard }
      const { attempt } = scripted({ primary: ["ok", "ok"] })
      yield* withFailover([primary], attempt, noRetry)
      yield* withFailover([primary], attempt, noRetry)
      assert.deepStrictEqual(seen, { admits: 2, records: 2 })
    }).pipe(Effect.provide(
      TargetBreaker.layer({ failures: 3, cooldown: Duration.seconds(30), shared: true }).pipe(
        Layer.provide(layer),
        Layer.provideMerge(Metrics.layer)
      )
    ))
  })

  it.effect("failures 0 turns breakers off", () =>
    Effect.gen(function*() {
      const { guard } = yield* TargetBreaker
      assert.isUndefined(guard)
    }).pipe(Effect.provide(
      TargetBreaker.layer({ failures: 0, cooldown: Duration.seconds(1) }).pipe(
        Layer.provide(CircuitBreaker.layerStoreMemory()),
        Layer.provide(Metrics.layer)
      )
    )))
})
