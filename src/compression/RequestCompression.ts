/**
 * Compression for one request, at one level: what each round sends upstream (`wire`), the client's own
 * request when it goes out as it came (`native`), and what it saved (`report`). The core keeps the
 * original conversation for everything else (shared tools, pending turns, the request log's text);
 * only what goes upstream changes. Under `shadow` nothing changes on the wire, and what `safe` and
 * `aggressive` would have changed is counted instead.
 */
import type { ChatMessage } from "../kernel/Canonical.ts"
import type { NativeRequest } from "../kernel/ChatCall.ts"
import type { CompressionLevel } from "../kernel/CompressionLevel.ts"
import type { ModelPrice } from "../prices/ModelPrice.ts"
import type { Cut } from "./Aggressive.ts"
import { type Change, compressNative, compressorOf, type WireLevel } from "./CompressMessages.ts"
import { savedMicroDollars } from "./SavedDollars.ts"
import { countSavings, netSaved, type PlacedChange, type Saving, totalSaved } from "./Savings.ts"

export interface CompressionReport {
  readonly level: CompressionLevel
  /** What the changes sent upstream saved, per change; `undefined` when nothing changed. */
  readonly savings: Promise<ReadonlyArray<Saving>> | undefined
  /** `shadow` only: what each level would have saved. */
  readonly shadow: {
    readonly safe: Promise<ReadonlyArray<Saving>> | undefined
    readonly aggressive: Promise<ReadonlyArray<Saving>> | undefined
  } | undefined
  /**
   * The share of the prompt whose prompt cache the gateway broke (`SavedDollars.ts`): what the previous
   * turn sent, when this request offered `svc_expand_output` for the first time; absent: none.
   */
  readonly cacheBreak?: number | undefined
}

export interface RequestCompression {
  readonly level: CompressionLevel
  /** The history as it goes upstream. */
  readonly wire: (history: ReadonlyArray<ChatMessage>) => ReadonlyArray<ChatMessage>
  /** The client's own request as it goes upstream. */
  readonly native: (native: NativeRequest) => NativeRequest
  readonly report: () => CompressionReport
  /** What `aggressive` cut since the last call, each once, for `svc_expand_output` to return. */
  readonly takeCuts: () => ReadonlyArray<Cut>
  /**
   * Told that `svc_expand_output` is offered with `history` (its first round): when the conversation's
   * first cut is in what the client added since the last assistant message, the previous turn went
   * without the tool, and the tools list it cached changed; the report says how much that was.
   */
  readonly expandOffered: (history: ReadonlyArray<ChatMessage>) => void
}

/** A message's size, for where a change sits in the conversation. */
const sizeOf = (message: ChatMessage): number => {
  let size = 16
  const content = message.content
  if (typeof content === "string") size += content.length
  else if (Array.isArray(content)) {
    for (const part of content) {
      size += typeof part["text"] === "string"
        ? part["text"].length
        : 64
    }
  }
  for (const call of message.tool_calls ?? []) size += call.function.arguments.length + call.function.name.length
  return size
}

/** Whether compression may change `message`: a tool result, or tool calls' arguments. */
const compressible = (message: ChatMessage): boolean =>
  message.role === "tool" || (message.tool_calls !== undefined && message.tool_calls.length > 0)

const NONE: ReadonlyArray<Cut> = []

/**
 * Watches the histories a request sends and compresses each message once at `level`: the changes of
 * messages not seen before are placed (where they sit in that history) and counted.
 */
const tracker = (level: WireLevel) => {
  const compress = compressorOf(level)
  const seen = new WeakSet<ChatMessage>()
  const counted: Array<Promise<ReadonlyArray<Saving>>> = []
  const nativeChanges: Array<Change> = []
  const cuts = new Map<string, Cut>()
  let taken = 0
  // where the first tracked history (the client's) was first cut
  let firstCut: number | undefined
  const track = (history: ReadonlyArray<ChatMessage>): ReadonlyArray<ChatMessage> => {
    const sizes = history.map(sizeOf)
    const total = sizes.reduce((sum, size) => sum + size, 0)
    const placed: Array<PlacedChange> = []
    let offset = 0
    let changed = false
    const out = history.map((message, index) => {
      const done = compress(message)
      if (!seen.has(message)) {
        seen.add(message)
        for (const change of done.changes) {
          placed.push({ ...change, at: total === 0 ? 0 : offset / total })
          nativeChanges.push(change)
        }
        for (const cut of done.cuts) if (!cuts.has(cut.id)) cuts.set(cut.id, cut)
        if (done.cuts.length > 0 && firstCut === undefined) firstCut = index
      }
      offset += sizes[index]!
      if (done.message !== message) changed = true
      return done.message
    })
    if (placed.length > 0) counted.push(countSavings(placed))
    return changed ? out : history
  }
  const savings = () => counted.length === 0 ? undefined : Promise.all(counted).then((all) => all.flat())
  const takeCuts = (): ReadonlyArray<Cut> => {
    if (cuts.size === taken) return NONE
    const fresh = [...cuts.values()].slice(taken)
    taken = cuts.size
    return fresh
  }
  /** The share of `history` before its first cut's turn, when no earlier turn was cut (else 0). */
  const uncutShare = (history: ReadonlyArray<ChatMessage>): number => {
    if (firstCut === undefined) return 0
    let lastAnswer = -1
    for (let i = history.length - 1; i >= 0; i--) {
      if (history[i]!.role === "assistant") {
        lastAnswer = i
        break
      }
    }
    if (lastAnswer < 0 || firstCut <= lastAnswer) return 0
    let before = 0
    let total = 0
    for (let i = 0; i < history.length; i++) {
      const size = sizeOf(history[i]!)
      total += size
      if (i <= lastAnswer) before += size
    }
    return total === 0 ? 0 : before / total
  }
  return { track, savings, nativeChanges, takeCuts, uncutShare }
}

type Tracker = ReturnType<typeof tracker>

const NO_CUTS = (): ReadonlyArray<Cut> => NONE

/** A tracker made on first use: a request with nothing to compress never allocates one. */
const lazyTracker = (level: WireLevel) => {
  let made: Tracker | undefined
  return {
    track: (history: ReadonlyArray<ChatMessage>): ReadonlyArray<ChatMessage> => {
      if (made === undefined) {
        if (!history.some(compressible)) return history
        made = tracker(level)
      }
      return made.track(history)
    },
    savings: () => made?.savings(),
    takeCuts: (): ReadonlyArray<Cut> => made?.takeCuts() ?? NONE,
    nativeChanges: (): ReadonlyArray<Change> => made?.nativeChanges ?? [],
    uncutShare: (history: ReadonlyArray<ChatMessage>): number => made?.uncutShare(history) ?? 0
  }
}

/** Compression for a request at `level`. */
export const requestCompression = (level: CompressionLevel): RequestCompression => {
  if (level === "off") {
    return {
      level,
      wire: (history) => history,
      native: (native) => native,
      report: () => ({ level, savings: undefined, shadow: undefined }),
      takeCuts: NO_CUTS,
      expandOffered: () => {}
    }
  }
  if (level === "shadow") {
    const safe = lazyTracker("safe")
    const aggressive = lazyTracker("aggressive")
    return {
      level,
      wire: (history) => {
        safe.track(history)
        aggressive.track(history)
        return history
      },
      native: (native) => native,
      report: () => ({ level, savings: undefined, shadow: { safe: safe.savings(), aggressive: aggressive.savings() } }),
      // nothing was cut from what went upstream
      takeCuts: NO_CUTS,
      expandOffered: () => {}
    }
  }
  const active = lazyTracker(level)
  let cacheBreak = 0
  let nativeDone: { readonly from: NativeRequest; readonly to: NativeRequest } | undefined
  return {
    level,
    wire: active.track,
    // the client's request holds the texts of its own messages: the changes tracked so far cover them
    native: (native) => {
      if (nativeDone?.from !== native) nativeDone = { from: native, to: compressNative(native, active.nativeChanges()) }
      return nativeDone.to
    },
    report: () =>
      cacheBreak === 0
        ? { level, savings: active.savings(), shadow: undefined }
        : { level, savings: active.savings(), shadow: undefined, cacheBreak },
    takeCuts: active.takeCuts,
    expandOffered: (history) => {
      cacheBreak = active.uncutShare(history)
    }
  }
}

/** What compression came to for one request, as the log, the metrics and `x-svc-tokens-saved` report it. */
export interface CompressionFacts {
  readonly level: CompressionLevel
  /** o200k tokens saved on the wire (0 for `off` and `shadow`). */
  readonly saved: number
  /** The same priced as a bill prices it, in fresh-input tokens (`netSaved`). */
  readonly savedNet: number
  /**
   * The same in micro-dollars at the answering model's price, less the cost of a prompt-cache miss the
   * gateway caused (`SavedDollars.ts`); null: the price is unknown.
   */
  readonly savedMicro: number | null
  /** `shadow` only: what `safe` and `aggressive` would have saved. */
  readonly shadowSafe: number | null
  readonly shadowAggressive: number | null
}

/** Whether the report's figures are still being counted (else `factsOf` needs no waiting). */
export const isCounting = (report: CompressionReport): boolean =>
  report.savings !== undefined || report.shadow?.safe !== undefined || report.shadow?.aggressive !== undefined

type Usage = { readonly promptTokens: number; readonly cachedTokens: number }

const facts = (level: CompressionLevel, { cacheBreak, price, savings, shadow, usage }: {
  readonly savings: ReadonlyArray<Saving>
  /** Under `shadow`: what `safe` and `aggressive` would have saved. */
  readonly shadow: readonly [ReadonlyArray<Saving>, ReadonlyArray<Saving>] | undefined
  readonly usage: Usage
  readonly price: ModelPrice | null
  readonly cacheBreak: number
}): CompressionFacts => ({
  level,
  saved: totalSaved(savings),
  savedNet: netSaved(savings, usage),
  savedMicro: price === null ? null : savedMicroDollars(savings, usage, price, cacheBreak),
  shadowSafe: shadow === undefined ? null : totalSaved(shadow[0]),
  shadowAggressive: shadow === undefined ? null : totalSaved(shadow[1])
})

const uncounted = new Map<string, CompressionFacts>()

/** The figures of a report with nothing to count: the same few values, made once each. */
export const uncountedFacts = (report: CompressionReport): CompressionFacts => {
  const key = report.shadow === undefined ? report.level : `${report.level}+shadow`
  let known = uncounted.get(key)
  if (known === undefined) {
    // nothing saved, whatever the price: 0 (a row with an unknown price reads back its saving as null)
    known = facts(report.level, {
      savings: [],
      shadow: report.shadow === undefined ? undefined : [[], []],
      usage: { promptTokens: 0, cachedTokens: 0 },
      price: null,
      cacheBreak: 0
    })
    known = { ...known, savedMicro: 0 }
    uncounted.set(key, known)
  }
  return known
}

/** The report's savings, once counted, priced with the answer's usage and its model's price (null: unknown). */
export const factsOf = async (
  report: CompressionReport,
  usage: Usage,
  price: ModelPrice | null = null
): Promise<CompressionFacts> => {
  const none: Promise<ReadonlyArray<Saving>> = Promise.resolve([])
  const [savings, safe, aggressive] = await Promise.all([
    report.savings ?? none,
    report.shadow?.safe ?? none,
    report.shadow?.aggressive ?? none
  ])
  return facts(report.level, {
    savings,
    shadow: report.shadow === undefined ? undefined : [safe, aggressive],
    usage,
    price,
    cacheBreak: report.cacheBreak ?? 0
  })
}
