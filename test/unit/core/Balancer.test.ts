/**
 * Load balancing over a balanced route's targets: draws by weight (with and without a session), a
 * session's stickiness (across instances by its hash, and to the target it last answered on), resting
 * targets (429 until `Retry-After`, open circuits) moved behind the fallbacks, a 429 moving to the
 * route's next target at once, and the per-target series. Draws come from a seeded generator, so the
 * shares asserted are the same on every run.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { DEFAULT_REST_MS, makeBalancer } from "../../../src/core/Balancer.ts"
import { withFailover } from "../../../src/core/Failover.ts"
import { makeMetrics } from "../../../src/observability/Metrics.ts"
import type { Provider } from "../../../src/providers/Provider.ts"
import { ProviderError, TargetOpen, UpstreamStatus } from "../../../src/providers/ProviderError.ts"
import type { Target } from "../../../src/providers/Providers.ts"

const member = (name: string, weight: number): Target => ({
  address: "team/chat",
  modelId: "m",
  provider: { name } as Provider,
  balance: { route: "team/chat", weight }
})
const east = member("east", 3)
const west = member("west", 1)
const backup: Target = { address: "local/echo", modelId: "echo", provider: { name: "local" } as Provider }
const chain = [east, west, backup]

/** A small seeded generator (mulberry32): the same draws on every run. */
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
}

const setup = (options: { readonly open?: ReadonlySet<string> } = {}) => {
  const metrics = makeMetrics()
  let now = 1_000_000
  const balancer = makeBalancer(
    { isOpen: (target) => options.open?.has(target.provider.name) ?? false },
    metrics,
    { random: seeded(7), now: () => now }
  )
  return { balancer, metrics, advance: (ms: number) => (now += ms) }
}

const names = (targets: ReadonlyArray<Target>) => targets.map((target) => target.provider.name)

const limited = (provider: string, retryAfterMs?: number) =>
  new ProviderError({
    provider,
    reason: new UpstreamStatus({
      status: 429,
      message: "slow down",
      ...(retryAfterMs === undefined ? {} : { retryAfterMs })
    })
  })

describe("Balancer.order", () => {
  it("leaves a chain without a balanced route as it is, the same array", () => {
    const { balancer } = setup()
    const plain = [backup]
    assert.strictEqual(balancer.order(plain, "s1"), plain)
  })

  it("without a session, draws the first target by weight (3:1 about 75 %), the others after, fallbacks last", () => {
    const { balancer } = setup()
    let first = 0
    for (let i = 0; i < 4_000; i++) {
      const ordered = balancer.order(chain, undefined)
      assert.deepStrictEqual(ordered.slice(2), [backup])
      assert.sameMembers(names(ordered.slice(0, 2)), ["east", "west"])
      if (ordered[0] === east) first++
    }
    assert.approximately(first / 4_000, 0.75, 0.03)
  })

  it("a session always gets the same first target; sessions spread by weight; a second instance agrees", () => {
    const one = setup().balancer
    const other = setup().balancer
    let first = 0
    for (let i = 0; i < 4_000; i++) {
      const session = `session-${i}`
      const picked = one.order(chain, session)
      assert.deepStrictEqual(names(one.order(chain, session)), names(picked))
      assert.deepStrictEqual(names(other.order(chain, session)), names(picked))
      if (picked[0] === east) first++
    }
    assert.approximately(first / 4_000, 0.75, 0.03)
  })

  it.effect("a session stays on the target it last answered on, though its draw is another", () =>
    Effect.gen(function*() {
      const { balancer } = setup()
      const drawnEast = Array.from({ length: 40 }, (_, i) => `s${i}`).filter((id) =>
        balancer.order(chain, id)[0] === east
      )
      const [id, other] = drawnEast
      assert.isDefined(other)
      // its draw was east; east fails (a 503 rests nothing), west answers: the session's cache is now on west
      const down = new ProviderError({ provider: "east", reason: new UpstreamStatus({ status: 503, message: "x" }) })
      yield* Effect.exit(balancer.watch(east, id, Effect.fail(down)))
      yield* balancer.watch(west, id, Effect.succeed("ok"))
      assert.deepStrictEqual(names(balancer.order(chain, id!).slice(0, 2)), ["west", "east"])
      // another session drawn to east stays there
      assert.strictEqual(balancer.order(chain, other!)[0], east)
    }))

  it.effect("a 429 rests the target until its Retry-After: behind the fallbacks, then back", () =>
    Effect.gen(function*() {
      const { advance, balancer, metrics } = setup()
      yield* Effect.exit(balancer.watch(east, undefined, Effect.fail(limited("east", 5_000))))
      for (let i = 0; i < 50; i++) {
        assert.deepStrictEqual(names(balancer.order(chain, `x${i}`)), ["west", "local", "east"])
      }
      advance(4_999)
      assert.deepStrictEqual(names(balancer.order(chain, undefined)).at(-1), "east")
      advance(2)
      assert.sameMembers(names(balancer.order(chain, undefined)).slice(0, 2), ["east", "west"])
      assert.include(metrics.render(), `svc_gateway_target_calls_total{target="east/m",outcome="rate_limited"} 1`)
    }))

  it.effect(`a 429 without Retry-After rests the target ${DEFAULT_REST_MS} ms; another failure does not rest it`, () =>
    Effect.gen(function*() {
      const { advance, balancer, metrics } = setup()
      const down = new ProviderError({ provider: "west", reason: new UpstreamStatus({ status: 500, message: "x" }) })
      yield* Effect.exit(balancer.watch(west, undefined, Effect.fail(down)))
      assert.strictEqual(balancer.order(chain, undefined).length, 3)
      assert.notStrictEqual(balancer.order(chain, undefined)[2], west)
      yield* Effect.exit(balancer.watch(west, undefined, Effect.fail(limited("west"))))
      assert.deepStrictEqual(names(balancer.order(chain, undefined)), ["east", "local", "west"])
      advance(DEFAULT_REST_MS + 1)
      assert.deepStrictEqual(names(balancer.order(chain, undefined)).at(-1), "local")
      assert.include(metrics.render(), `svc_gateway_target_calls_total{target="west/m",outcome="failed"} 1`)
    }))

  it.effect("an open circuit rests its target; a refusal by the circuit counts as skipped", () =>
    Effect.gen(function*() {
      const { balancer, metrics } = setup({ open: new Set(["east"]) })
      assert.deepStrictEqual(names(balancer.order(chain, "s")), ["west", "local", "east"])
      const refused = new ProviderError({
        provider: "east",
        reason: new TargetOpen({ target: "east/m", retryAfterMs: 100 })
      })
      yield* Effect.exit(balancer.watch(east, "s", Effect.fail(refused)))
      yield* balancer.watch(west, "s", Effect.succeed("ok"))
      const rendered = metrics.render()
      assert.include(rendered, `svc_gateway_target_calls_total{target="east/m",outcome="skipped"} 1`)
      assert.include(rendered, `svc_gateway_target_calls_total{target="west/m",outcome="ok"} 1`)
      assert.include(rendered, `svc_gateway_balanced_picks_total{route="team/chat",target="west/m"} 1`)
    }))
})

describe("failover within a balanced route", () => {
  it.live("a 429 moves to the route's next target at once, with no wait; a 429 on the last one retries", () =>
    Effect.gen(function*() {
      const calls: Array<string> = []
      const scripts: Record<string, Array<ProviderError | "ok">> = {
        east: [limited("east", 60_000)],
        west: ["ok"]
      }
      const attempt = (target: Target) =>
        Effect.suspend(() => {
          calls.push(target.provider.name)
          const next = scripts[target.provider.name]!.shift()!
          return next === "ok" ? Effect.succeed(target.provider.name) : Effect.fail(next)
        })
      // a backoff of a minute: waiting for it would time the test out
      const rules = { retries: 2, backoffMs: 60_000, retryAfterMaxMs: 120_000, deadlineMs: 120_000 }
      const answered = yield* withFailover([east, west], attempt, { rules }).pipe(Effect.timeout("5 seconds"))
      assert.strictEqual(answered.target, west)
      assert.deepStrictEqual(calls, ["east", "west"])
    }))
})
