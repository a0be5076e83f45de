/**
 * A copy of a gateway bundle that counts what its process does, for `bench/steps.ts`: the steps of
 * Effect's run loop (each effect a fiber evaluates, and each continuation it applies inline), the
 * fibers made, the times a fiber runs (its start, and each resume after a wait), and the calls to
 * `JSON.parse` and `JSON.stringify`. These counts do not move with the machine, as time does, and they
 * are cheap to take, where callgrind's instructions take minutes a build: they say whether a build runs
 * more of Effect's machinery a request, and how much.
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
  /** With `tally`: the steps so far by what each evaluated (`TALLY`'s `__stepKind`). */
  readonly tally?: Readonly<Record<string, number>>
}

/** The counts a request is measured by, in the order they are printed. */
export const COUNT_KEYS = ["steps", "continuations", "fibers", "runs", "jsonParse", "jsonStringify"] as const

export const COUNTS_FILE_VARIABLE = "COUNTING_BUNDLE_FILE"

const PRELUDE = `import { writeFileSync as __countsWrite } from "node:fs";
const __counts = { steps: 0, continuations: 0, fibers: 0, runs: 0, jsonParse: 0, jsonStringify: 0, reads: 0 };
const __tally = new Map();
{
  const parse = JSON.parse;
  const stringify = JSON.stringify;
  JSON.parse = function(text, reviver) { __counts.jsonParse++; return parse(text, reviver); };
  JSON.stringify = function(value, replacer, space) { __counts.jsonStringify++; return stringify(value, replacer, space); };
  process.on("SIGUSR2", () => {
    __counts.reads++;
    __countsWrite(process.env.${COUNTS_FILE_VARIABLE}, stringify(__tally.size === 0 ? __counts : { ...__counts, tally: Object.fromEntries(__tally) }));
  });
}
`

/**
 * Each piece of Effect's fiber to find, and the count that goes before it (after an opening brace or a
 * statement's end). Spaces between its statements are matched loosely: the bundler indents the fiber
 * by how deep it nests it.
 */
const patches = (tally: boolean): ReadonlyArray<readonly [string, string]> => [
  ["this.id = ++fiberIdStore.id;", "__counts.fibers++;"],
  ["if (this._exit) return; else if (this._asyncContext !== void 0) {", "__counts.runs++;"],
  ["this.currentOpCount++; const cache = this.cache;", tally ? `__counts.steps++; ${TALLY_STEP}` : "__counts.steps++;"],
  ["if ((++this.currentOpCount & maxInlineSteps - 1) === 0) return exitSucceed(value);", "__counts.continuations++;"]
]

/**
 * What a step evaluated, in a few words: a service or reference looked up (its key), an exit handed
 * back to the loop (after the step that made it: a `yield*` of a service is two steps, the lookup
 * and its exit), a generator resumed, or Effect's primitive with the start of its function's source
 * (the continuation of a `flatMap`, the thunk of a `suspend`). Enough to find the code a step
 * belongs to in the bundle.
 */
const TALLY = `let __previousKind = "";
const __source = (f) => typeof f === "function" ? f.toString().replace(/\\s+/g, " ").slice(0, 100) : "";
const __stepKind = (effect) => {
  if (typeof effect.key === "string") return "service " + effect.key;
  if ("~effect/Exit" in effect) return "exit, after: " + __previousKind.slice(0, 100);
  if (effect.iterator !== undefined) return "generator";
  const payload = typeof effect.payload === "function" ? effect.payload : effect["~effect/Effect/args"];
  return effect["~effect/Effect/identifier"] + " " + __source(payload);
};
`

/** Counts the step about to run by its kind. */
const TALLY_STEP =
  "{ const kind = __stepKind(current); __previousKind = kind; __tally.set(kind, (__tally.get(kind) ?? 0) + 1); }"

const pattern = (piece: string): RegExp =>
  new RegExp(piece.split(" ").map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("\\s+"), "g")

/**
 * The bundle's text with the counting added; throws when a piece to patch is missing or repeated. With
 * `tally`, every step is also counted by its kind (slower: for finding steps, not for counting them).
 */
export const countingBundle = (source: string, options: { readonly tally?: boolean } = {}): string => {
  let patched = source
  for (const [piece, before] of patches(options.tally === true)) {
    const found = patched.match(pattern(piece))?.length ?? 0
    if (found !== 1) {
      throw new Error(
        `countingBundle: ${JSON.stringify(piece)} found ${found} times, not once: not a bundle of Effect 4.1's fiber`
      )
    }
    patched = patched.replace(pattern(piece), (text) => `${before} ${text}`)
  }
  return PRELUDE + (options.tally === true ? TALLY : "") + patched
}

/** The counts between two readings, a request. */
export const perRequest = (before: Counts, after: Counts, requests: number): Record<string, number> => {
  const out: Record<string, number> = {}
  for (const key of COUNT_KEYS) {
    out[key] = (after[key] - before[key]) / requests
  }
  return out
}

/** The `top` kinds of step a request ran most between two readings, with how many of each a request. */
export const tallyPerRequest = (
  before: Counts,
  after: Counts,
  requests: number,
  top: number
): ReadonlyArray<readonly [string, number]> =>
  Object.entries(after.tally ?? {})
    .map(([kind, count]) => [kind, (count - (before.tally?.[kind] ?? 0)) / requests] as const)
    .filter(([, perRequest]) => perRequest > 0)
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
