/**
 * A process under valgrind's callgrind, for `bench/instructions.ts`: the command to run `node` under,
 * and its counters zeroed and read while it runs (`callgrind_control`, through valgrind's gdbserver).
 * Callgrind counts the instructions the process executes in user space, every thread's; the same
 * program on the same input executes the same ones whatever else the machine runs, so two builds a
 * percent apart can be told apart where their timings cannot.
 */
import { execFileSync } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { basename, join } from "node:path"

/**
 * What a callgrind dump counted, by event: the names of its `events:` line against the figures of its
 * `summary:` line (the `totals:` line of an older format). `Ir` is instructions; with the cache
 * simulated there are misses too (`I1mr`, `D1mr`, `D1mw` in the first level, `ILmr`, `DLmr`, `DLmw` in
 * the last). A file without both lines is not a dump, which is an error, not zero.
 */
export const dumpEvents = (text: string): Readonly<Record<string, number>> => {
  const names = /^events: (.+)$/m.exec(text)
  const line = /^summary: ([\d ]+)$/m.exec(text) ?? /^totals: ([\d ]+)$/m.exec(text)
  if (names === null || line === null) throw new Error("not a callgrind dump: no 'events:' and 'summary:' lines")
  const figures = line[1]!.trim().split(/ +/).map(Number)
  // a missing trailing figure is zero, as in callgrind's cost lines
  return Object.fromEntries(names[1]!.trim().split(/ +/).map((name, i) => [name, figures[i] ?? 0]))
}

/** What a request cost, by a dump's counts over `requests` requests. */
export interface Cost {
  readonly instructions: number
  /** Misses in the first-level caches, of code and of data. */
  readonly firstLevel: number
  /** Misses in the last level simulated. */
  readonly lastLevel: number
  /** Of the misses, those fetching code: a long path through much code misses here, not in its data. */
  readonly firstLevelCode: number
  readonly lastLevelCode: number
  /** Instructions + 10 a first-level miss + 100 a last-level one: KCachegrind's cycle estimate. */
  readonly cycles: number
}

/** A dump's counts a request; without a simulated cache, its misses are zero. */
export const costPerRequest = (events: Readonly<Record<string, number>>, requests: number): Cost => {
  const event = (name: string) => (events[name] ?? 0) / requests
  const firstLevel = event("I1mr") + event("D1mr") + event("D1mw")
  const lastLevel = event("ILmr") + event("DLmr") + event("DLmw")
  return {
    instructions: event("Ir"),
    firstLevel,
    lastLevel,
    firstLevelCode: event("I1mr"),
    lastLevelCode: event("ILmr"),
    cycles: event("Ir") + 10 * firstLevel + 100 * lastLevel
  }
}

/** The numbered dumps of `outFile` (`<outFile>.1`, `.2`, ...), by number. */
export const numberedDumps = (names: ReadonlyArray<string>, outFile: string): ReadonlyArray<string> => {
  const prefix = `${basename(outFile)}.`
  return names
    .filter((name) => name.startsWith(prefix) && /^\d+$/.test(name.slice(prefix.length)))
    .sort((a, b) => Number(a.slice(prefix.length)) - Number(b.slice(prefix.length)))
}

export interface Callgrind {
  /** The program and arguments to put before `node` and its own. */
  readonly command: ReadonlyArray<string>
  /** Zeroes the counters of the process `pid`. */
  readonly zero: (pid: number) => void
  /** Dumps the counters of the process `pid` and returns what they counted since `zero`, by event. */
  readonly read: (pid: number) => Promise<Readonly<Record<string, number>>>
}

/** How long a dump may take to appear after `callgrind_control` said OK. */
const DUMP_WAIT_MS = 30_000

/**
 * Callgrind writing into `dir`. `host` is the HOST the process runs with: valgrind's gdbserver names
 * its pipes after the USER and HOST variables, and the gateway's own HOST is its listening address, so
 * `callgrind_control` must be given the same to find them. `flags` are callgrind's own options, such
 * as `--cache-sim=yes`.
 */
export const callgrind = (dir: string, host: string, flags: ReadonlyArray<string> = []): Callgrind => {
  const outFile = join(dir, "callgrind.out")
  const prefix = join(dir, "vgdb")
  const control = (pid: number, action: string) =>
    execFileSync("callgrind_control", [`--vgdb-prefix=${prefix}`, action, String(pid)], {
      env: { ...process.env, HOST: host },
      stdio: ["ignore", "pipe", "pipe"]
    })
  return {
    command: [
      "valgrind",
      "--tool=callgrind",
      `--callgrind-out-file=${outFile}`,
      `--vgdb-prefix=${prefix}`,
      ...flags
    ],
    zero: (pid) => void control(pid, "--zero"),
    read: async (pid) => {
      const dumps = () => numberedDumps(readdirSync(dir), outFile)
      const before = dumps().length
      const said = control(pid, "--dump").toString()
      const deadline = Date.now() + DUMP_WAIT_MS
      // the file can be there before its header is: read it until it has its summary
      for (;;) {
        const written = dumps()
        if (written.length > before) {
          try {
            return dumpEvents(readFileSync(join(dir, written.at(-1)!), "utf8"))
          } catch (error) {
            if (Date.now() > deadline) throw error
          }
        } else if (Date.now() > deadline) throw new Error(`callgrind wrote no dump for ${pid}: ${said.trim()}`)
        await new Promise((done) => setTimeout(done, 100))
      }
    }
  }
}
