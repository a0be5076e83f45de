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
 * The instructions a callgrind dump counted: its `summary:` line (the `totals:` line of an older
 * format). A file that has neither is not a dump, which is an error, not zero.
 */
export const dumpTotal = (text: string): number => {
  const line = /^summary: (\d+)/m.exec(text) ?? /^totals: (\d+)/m.exec(text)
  if (line === null) throw new Error("not a callgrind dump: no 'summary:' or 'totals:' line")
  return Number(line[1])
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
  /** Dumps the counters of the process `pid` and returns the instructions counted since `zero`. */
  readonly read: (pid: number) => Promise<number>
}

/** How long a dump may take to appear after `callgrind_control` said OK. */
const DUMP_WAIT_MS = 30_000

/**
 * Callgrind writing into `dir`. `host` is the HOST the process runs with: valgrind's gdbserver names
 * its pipes after the USER and HOST variables, and the gateway's own HOST is its listening address, so
 * `callgrind_control` must be given the same to find them.
 */
export const callgrind = (dir: string, host: string): Callgrind => {
  const outFile = join(dir, "callgrind.out")
  const prefix = join(dir, "vgdb")
  const control = (pid: number, action: string) =>
    execFileSync("callgrind_control", [`--vgdb-prefix=${prefix}`, action, String(pid)], {
      env: { ...process.env, HOST: host },
      stdio: ["ignore", "pipe", "pipe"]
    })
  return {
    command: ["valgrind", "--tool=callgrind", `--callgrind-out-file=${outFile}`, `--vgdb-prefix=${prefix}`],
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
            return dumpTotal(readFileSync(join(dir, written.at(-1)!), "utf8"))
          } catch (error) {
            if (Date.now() > deadline) throw error
          }
        } else if (Date.now() > deadline) throw new Error(`callgrind wrote no dump for ${pid}: ${said.trim()}`)
        await new Promise((done) => setTimeout(done, 100))
      }
    }
  }
}
