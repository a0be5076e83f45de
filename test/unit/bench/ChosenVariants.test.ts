/**
 * Which gateway variants a bench run measures: `BENCH_TARGETS`' names, or all but those measured only
 * when named (the twin, a second process of the same build, which would add a process to every run).
 */
import { assert, describe, it } from "vitest"
import { chosenVariants, type GatewayVariant } from "../../../bench/gateway.ts"

const variants: ReadonlyArray<GatewayVariant> = [
  { name: "gateway", env: {} },
  { name: "gateway-log-off", env: { GATEWAY_REQUEST_LOG: "off" } },
  { name: "gateway-twin", env: {}, onlyWhenNamed: true }
]

const names = (only: ReadonlyArray<string>) => chosenVariants(variants, only).map((v) => v.name)

describe("the bench's gateway variants", () => {
  it("with no targets named, every variant but the named-only ones", () => {
    assert.deepStrictEqual(names([]), ["gateway", "gateway-log-off"])
  })

  it("a named-only variant runs when named, beside the others named", () => {
    assert.deepStrictEqual(names(["passthrough", "gateway", "gateway-twin"]), ["gateway", "gateway-twin"])
  })

  it("targets named leave out the variants they do not name", () => {
    assert.deepStrictEqual(names(["passthrough", "gateway-log-off"]), ["gateway-log-off"])
  })
})
