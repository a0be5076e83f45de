/**
 * `bench/steps.ts`' counting copy of a bundle: it finds Effect 4.1's fiber in a real bundle, the copy
 * counts what the program did, and a bundle without those lines is refused rather than copied to count
 * nothing.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "rolldown"
import { afterEach, assert, describe, it } from "vitest"
import {
  countingBundle,
  type Counts,
  COUNTS_FILE_VARIABLE,
  perRequest,
  tallyPerRequest
} from "../../../bench/countingBundle.ts"

const repoRoot = fileURLToPath(new URL("../../..", import.meta.url))

// three fibers forked and joined, one JSON.stringify of their results, then the process waits to be read
const PROGRAM = `import { Effect } from "effect"
const results = await Effect.runPromise(
  Effect.forEach([1, 2, 3], (n) => Effect.delay(Effect.succeed(n * 2), "1 millis"), { concurrency: 3 })
)
console.log(JSON.stringify(results))
setInterval(() => {}, 1000)
`

const waitFor = async <A>(read: () => A | undefined, what: string): Promise<A> => {
  const deadline = Date.now() + 20_000
  while (Date.now() < deadline) {
    const value = read()
    if (value !== undefined) return value
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error(`timed out waiting for ${what}`)
}

describe("countingBundle", () => {
  const cleanups: Array<() => void> = []
  afterEach(() => {
    for (const cleanup of cleanups.splice(0)) cleanup()
  })

  /** The program bundled, its counting copy run until it printed, and its counts read once. */
  const countProgram = async (options: { readonly tally?: boolean }): Promise<Counts> => {
    // under node_modules, so the program's `effect` resolves to the project's own
    const cache = join(repoRoot, "node_modules", ".cache")
    mkdirSync(cache, { recursive: true })
    const dir = mkdtempSync(join(cache, "counting-bundle-"))
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
    writeFileSync(join(dir, "program.ts"), PROGRAM)
    const bundle = join(dir, "program.js")
    await build({
      input: join(dir, "program.ts"),
      platform: "node",
      output: { file: bundle, format: "esm", minify: "dce-only", comments: false },
      logLevel: "silent"
    })
    const counting = join(dir, "program.counting.js")
    writeFileSync(counting, countingBundle(readFileSync(bundle, "utf8"), options))
    const countsFile = join(dir, "counts.json")
    let output = ""
    const child: ChildProcess = spawn(process.execPath, [counting], {
      env: { ...process.env, [COUNTS_FILE_VARIABLE]: countsFile },
      stdio: ["ignore", "pipe", "inherit"]
    })
    cleanups.push(() => child.kill("SIGKILL"))
    child.stdout!.on("data", (data: Buffer) => output += data.toString())
    // the copy still runs the program as written
    await waitFor(() => output.includes("\n") ? output : undefined, "the program's output")
    assert.strictEqual(output, "[2,4,6]\n")
    child.kill("SIGUSR2")
    return waitFor((): Counts | undefined => {
      try {
        return JSON.parse(readFileSync(countsFile, "utf8")) as Counts
      } catch {
        return undefined
      }
    }, "the counts")
  }

  it("counts the fibers, runs, steps and JSON calls of a bundled Effect program", { timeout: 60_000 }, async () => {
    const counts = await countProgram({})
    assert.strictEqual(counts.reads, 1)
    assert.isUndefined(counts.tally)
    // the root fiber and one a element
    assert.isAtLeast(counts.fibers, 4)
    // each fiber runs once to start and again after its delay
    assert.isAtLeast(counts.runs, 7)
    assert.isAbove(counts.steps, counts.fibers)
    assert.isAtLeast(counts.jsonStringify, 1)
  })

  it("with tally, counts every step by what it evaluated", { timeout: 60_000 }, async () => {
    const counts = await countProgram({ tally: true })
    const tally = Object.entries(counts.tally ?? {})
    assert.strictEqual(tally.reduce((sum, [, count]) => sum + count, 0), counts.steps)
    // `Effect.succeed(n * 2)` hands the loop an exit, counted after the step that made it
    assert.isTrue(tally.some(([kind]) => kind.startsWith("exit, after: ")), JSON.stringify(tally))
    // a primitive is named, with the start of its function's source
    assert.isTrue(tally.some(([kind]) => /^[A-Z]\w+ /.test(kind)), JSON.stringify(tally))
    assert.isFalse(tally.some(([kind]) => kind.startsWith("undefined")), JSON.stringify(tally))
  })

  it("gives the kinds of step a request ran most between two readings", () => {
    const counts = (reads: number, tally: Record<string, number>): Counts => ({
      steps: 0,
      continuations: 0,
      fibers: 0,
      runs: 0,
      jsonParse: 0,
      jsonStringify: 0,
      reads,
      tally
    })
    const before = counts(1, { "service a": 10, generator: 4 })
    const after = counts(2, { "service a": 30, generator: 44, "Sync () => 1": 2, "exit, after: x": 4 })
    assert.deepStrictEqual(tallyPerRequest(before, after, 2, 3), [
      ["generator", 20],
      ["service a", 10],
      ["exit, after: x", 2]
    ])
  })

  it("refuses a bundle without Effect's fiber, naming the line it did not find", () => {
    assert.throws(() => countingBundle("console.log(1)\n"), /fiberIdStore.id;" found 0 times/)
  })

  it("refuses a line found twice, where one count would be wrong", () => {
    const twice = "this.id = ++fiberIdStore.id;\nthis.id = ++fiberIdStore.id;\n"
    assert.throws(() => countingBundle(twice), /found 2 times/)
  })

  it("gives the counts between two readings a request", () => {
    const at = (n: number): Counts => ({
      steps: 100 * n,
      continuations: 4 * n,
      fibers: n,
      runs: 7 * n,
      jsonParse: 2 * n,
      jsonStringify: 3 * n,
      reads: n
    })
    assert.deepStrictEqual(perRequest(at(1), at(5), 4), {
      steps: 100,
      continuations: 4,
      fibers: 1,
      runs: 7,
      jsonParse: 2,
      jsonStringify: 3
    })
  })
})
