/**
 * A copy of a gateway bundle that counts what its process does, for `bench/steps.ts`: the steps of
 * Effect's run loop (each effect a fiber evaluates, and each continuation it applies inline), the
 * fibers made, the times a fiber runs (its start, and each resume after a wait), and the calls to
 * `JSON.parse` and `JSON.stringify`. These counts do not move with the machine, as time does, and they are cheap to take,
 * where callgrind's instructions take minutes a build: they say whether a build runs more of Effect's
 * machinery a request, and how much.
 *
 * The counts are written as JSON to the file `COUNTING_BUNDLE_FILE` names each time the process gets
 * `SIGUSR2`. The patches are made on the bundle's text, on lines of Effect's fiber that every build of
 * Effect 4.1 holds; a line not found exactly once is an error, never a copy that counts nothing.
 */

export interface Counts {
  /** Effects evaluated by a fiber's run loop. */
  readonly steps: number
  /** Continuations applied to a value without going back to the run loop. */
  readonly continuations: number
  /** Fibers started. */
  readonly fibers: number
  /** Times a fiber ran: its start and each resume after it waited. */
  readonly runs: number
  readonly jsonParse: number
  readonly jsonStringify: number
  /** How many times the counts were written, this one included. */
  readonly reads: number
}

/** The counts a request is measured by, in the order they are printed. */
export const COUNT_KEYS = ["steps", "continuations", "fibers", "runs", "jsonParse", "jsonStringify"] as const

export const COUNTS_FILE_VARIABLE = "COUNTING_BUNDLE_FILE"

const PRELUDE = `import { writeFileSync as __countsWrite } from "node:fs";
const __counts = { steps: 0, continuations: 0, fibers: 0, runs: 0, jsonParse: 0, jsonStringify: 0, reads: 0 };
{
  const parse = JSON.parse;
  const stringify = JSON.stringify;
  JSON.parse = function(text, reviver) { __counts.jsonParse++; return parse(text, reviver); };
  JSON.stringify = function(value, replacer, space) { __counts.jsonStringify++; return stringify(value, replacer, space); };
  process.on("SIGUSR2", () => {
    __counts.reads++;
    __countsWrite(process.env.${COUNTS_FILE_VARIABLE}, stringify(__counts));
  });
}
`

/**
 * Each piece of Effect's fiber to find, and the count that goes before it (after an opening brace or a
 * statement's end). Spaces between its statements are matched loosely: the bundler indents the fiber
 * by how deep it nests it.
 */
const PATCHES: ReadonlyArray<readonly [string, string]> = [
  ["this.id = ++fiberIdStore.id;", "__counts.fibers++;"],
  ["if (this._exit) return; else if (this._asyncContext !== void 0) {", "__counts.runs++;"],
  ["this.currentOpCount++; const cache = this.cache;", "__counts.steps++;"],
  ["if ((++this.currentOpCount & maxInlineSteps - 1) === 0) return exitSucceed(value);", "__counts.continuations++;"]
]

const pattern = (piece: string): RegExp =>
  new RegExp(piece.split(" ").map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("\\s+"), "g")

/** The bundle's text with the counting added; throws when a piece to patch is missing or repeated. */
export const countingBundle = (source: string): string => {
  let patched = source
  for (const [piece, before] of PATCHES) {
    const found = patched.match(pattern(piece))?.length ?? 0
    if (found !== 1) {
      throw new Error(
        `countingBundle: ${JSON.stringify(piece)} found ${found} times, not once: not a bundle of Effect 4.1's fiber`
      )
    }
    patched = patched.replace(pattern(piece), (text) => `${before} ${text}`)
  }
  return PRELUDE + patched
}

/** The counts between two readings, a request. */
export const perRequest = (before: Counts, after: Counts, requests: number): Record<string, number> => {
  const out: Record<string, number> = {}
  for (const key of COUNT_KEYS) {
    out[key] = (after[key] - before[key]) / requests
  }
  return out
}
