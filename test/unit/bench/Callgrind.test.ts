/**
 * `bench/instructions.ts`' reading of callgrind: a dump's counts by event, which dumps of the
 * output file are numbered ones, and the builds and counts it is given (shared with `bench/cpu.ts`).
 */
import { resolve } from "node:path"
import { afterEach, assert, describe, it } from "vitest"
import { costPerRequest, dumpEvents, numberedDumps } from "../../../bench/callgrind.ts"
import { envInt, envModes, extraNodeFlags, parseEntries } from "../../../bench/entries.ts"

const dump = (summary: string) =>
  `# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\npid: 9189\n\ndesc: Trigger: dump\n\npositions: line\nevents: Ir\n${summary}\n\nfl=(1) ???\nfn=(1) 0x0000000000108090\n0 3\n\ntotals: 1\n`

describe("callgrind's dumps", () => {
  it("counts a dump's summary, not its last cost line", () => {
    assert.deepStrictEqual(dumpEvents(dump("summary: 6545856818")), { Ir: 6_545_856_818 })
  })

  it("reads an older dump by its totals line", () => {
    assert.deepStrictEqual(dumpEvents("events: Ir\ntotals: 42\n"), { Ir: 42 })
  })

  it("names each figure of a simulated cache's summary by its event, a missing trailing one zero", () => {
    assert.deepStrictEqual(
      dumpEvents("events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\nsummary: 900 400 200 30 50 20 3 7\n"),
      { Ir: 900, Dr: 400, Dw: 200, I1mr: 30, D1mr: 50, D1mw: 20, ILmr: 3, DLmr: 7, DLmw: 0 }
    )
  })

  it("refuses a file that is not a dump, where zero would be a wrong figure", () => {
    assert.throws(() => dumpEvents(""), /not a callgrind dump/)
    assert.throws(() => dumpEvents("# callgrind format\nversion: 1\n"), /not a callgrind dump/)
    assert.throws(() => dumpEvents("events: Ir\n"), /not a callgrind dump/)
  })

  it("gives a request's share of each count, misses weighed into the cycle estimate", () => {
    const events = dumpEvents(
      "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\nsummary: 9000 0 0 300 200 100 40 20 10\n"
    )
    assert.deepStrictEqual(costPerRequest(events, 10), {
      instructions: 900,
      firstLevel: 60,
      lastLevel: 7,
      firstLevelCode: 30,
      lastLevelCode: 4,
      cycles: 900 + 10 * 60 + 100 * 7
    })
  })

  it("counts no misses where no cache was simulated", () => {
    assert.deepStrictEqual(costPerRequest(dumpEvents("events: Ir\nsummary: 500\n"), 4), {
      instructions: 125,
      firstLevel: 0,
      lastLevel: 0,
      firstLevelCode: 0,
      lastLevelCode: 0,
      cycles: 125
    })
  })

  it("lists the numbered dumps of the output file in their order, and nothing else", () => {
    assert.deepStrictEqual(
      numberedDumps(
        ["callgrind.out", "callgrind.out.10", "callgrind.out.2", "callgrind.out.1", "callgrind.out.x", "other.out.3"],
        "/tmp/run/callgrind.out"
      ),
      ["callgrind.out.1", "callgrind.out.2", "callgrind.out.10"]
    )
  })
})

describe("the builds on the command line", () => {
  it("a bundle alone, and a bundle with settings after '::'", () => {
    assert.deepStrictEqual(parseEntries(["dist/main.js", "dist/main.js::GATEWAY_REQUEST_LOG=off,A=b=c"]), [
      { entry: resolve("dist/main.js"), env: {}, label: "dist/main.js" },
      {
        entry: resolve("dist/main.js"),
        env: { GATEWAY_REQUEST_LOG: "off", A: "b=c" },
        label: "dist/main.js::GATEWAY_REQUEST_LOG=off,A=b=c"
      }
    ])
  })

  it("refuses a setting without a name and a value", () => {
    assert.throws(() => parseEntries(["dist/main.js::GATEWAY_REQUEST_LOG"]), /a setting is NAME=value/)
    assert.throws(() => parseEntries(["dist/main.js::=off"]), /a setting is NAME=value/)
  })

  it("gives a build the flags for every build, then its own NODE_FLAGS, blanks dropped", () => {
    const [plain, flagged] = parseEntries(["dist/main.js", "dist/main.js::NODE_FLAGS=--no-maglev  --cpu-prof"])
    assert.deepStrictEqual(extraNodeFlags(plain!.env), [])
    assert.deepStrictEqual(extraNodeFlags(plain!.env, "--trace-gc-nvp"), ["--trace-gc-nvp"])
    assert.deepStrictEqual(extraNodeFlags(flagged!.env, " --trace-gc-nvp "), [
      "--trace-gc-nvp",
      "--no-maglev",
      "--cpu-prof"
    ])
  })
})

describe("a count from the environment", () => {
  const NAME = "SVC_GATEWAY_TEST_COUNT"
  afterEach(() => {
    delete process.env[NAME]
  })

  it("is the default when unset, else the value given", () => {
    assert.strictEqual(envInt(NAME, 4_000), 4_000)
    process.env[NAME] = "250"
    assert.strictEqual(envInt(NAME, 4_000), 250)
  })

  it("refuses what is not a positive whole number", () => {
    for (const bad of ["0", "-3", "1.5", "many"]) {
      process.env[NAME] = bad
      assert.throws(() => envInt(NAME, 4_000), /SVC_GATEWAY_TEST_COUNT must be a positive integer/)
    }
  })
})

describe("the modes from the environment", () => {
  const NAME = "SVC_GATEWAY_TEST_MODES"
  afterEach(() => {
    delete process.env[NAME]
  })

  it("are both when unset, else those named", () => {
    assert.deepStrictEqual(envModes(NAME), ["non-stream", "stream"])
    process.env[NAME] = "stream"
    assert.deepStrictEqual(envModes(NAME), ["stream"])
  })

  it("refuses a mode that is not one, naming the variable", () => {
    process.env[NAME] = "non-stream,streamed"
    assert.throws(() => envModes(NAME), /SVC_GATEWAY_TEST_MODES: streamed is not non-stream or stream/)
  })
})
