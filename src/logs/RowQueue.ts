/**
 * The request log's queue, kept as columns rather than as records. A row waits for its batch up to the
 * flush interval (200 ms), long enough to outlive the young collections of its wait and be promoted:
 * every object a queued row holds is copied by the collector, then marked and swept in the old space.
 * As a record a row held 8.4 objects, 578 bytes (the record, its Date, its cost, boxed numbers, two
 * lists). Here its numbers go into one `Float64Array` and the strings that repeat from request to
 * request (the model as asked and as answered, the user agent, the session) are kept once, so a queued
 * row holds its id and little else of its own. The writer takes a batch back as records, young objects
 * that die with the batch's statement.
 */
import type { CompressionLevel } from "../kernel/CompressionLevel.ts"
import type { RequestKind, RequestRecord } from "./RequestRecord.ts"

// the numbers of a row, in this order
const CREATED_AT = 0
const STATUS = 1
const STREAM = 2
const PROMPT_TOKENS = 3
const COMPLETION_TOKENS = 4
const CACHED_TOKENS = 5
const REASONING_TOKENS = 6
const ATTEMPTS = 7
const LATENCY_MS = 8
const TTFT_MS = 9
const SAVED = 10
const SAVED_NET = 11
const SHADOW_SAFE = 12
const SHADOW_AGGRESSIVE = 13
const SAVED_MICRO = 14
const COST_INPUT = 15
const COST_CACHED_INPUT = 16
const COST_CACHE_WRITE = 17
const COST_OUTPUT = 18
const COST_TOTAL = 19
const NUMBERS = 20

// the references of a row, in this order
const ID = 0
const KIND = 1
const ORG_ID = 2
const KEY_ID = 3
const REQUESTED_MODEL = 4
const MODEL = 5
const PROVIDER = 6
const ERROR_CODE = 7
const COMPRESSION_LEVEL = 8
const USER_AGENT = 9
const SESSION_ID = 10
const PROMPT_TEXT = 11
const COMPLETION_TEXT = 12
const TAGS = 13
const SVC_TOOLS = 14
const REFERENCES = 15

/** A nullable number is NaN in its column and NULL by its bit here (a record may hold NaN itself). */
const NULL_TTFT = 1
const NULL_SAVED = 2
const NULL_SAVED_NET = 4
const NULL_SHADOW_SAFE = 8
const NULL_SHADOW_AGGRESSIVE = 16
const NULL_SAVED_MICRO = 32
const NULL_COST = 64

/** Writes a nullable number at `index`; returns `flag` when it is null (its slot left as it was). */
const nullable = (numbers: Float64Array, index: number, value: number | null, flag: number): number => {
  if (value === null) return flag
  numbers[index] = value
  return 0
}

const INITIAL_CAPACITY = 1024
/** Distinct strings kept once; past this many the table starts over (bounded whatever the traffic). */
const INTERN_LIMIT = 4096
const NO_VALUES: ReadonlyArray<string> = Object.freeze([])

export class RowQueue {
  #capacity = INITIAL_CAPACITY
  #numbers = new Float64Array(INITIAL_CAPACITY * NUMBERS)
  #references = new Array<unknown>(INITIAL_CAPACITY * REFERENCES).fill(null)
  #nulls = new Uint8Array(INITIAL_CAPACITY)
  #head = 0
  #length = 0
  readonly #interned = new Map<string, string>()

  get length(): number {
    return this.#length
  }

  /** Appends the record's values; throws (leaving the queue as it was) on a value that is not a record's. */
  push(record: RequestRecord): void {
    const createdAt = record.createdAt.getTime()
    if (this.#length === this.#capacity) this.#grow()
    const slot = (this.#head + this.#length) % this.#capacity
    const n = this.#numbers
    const at = slot * NUMBERS
    let nulls = 0
    n[at + CREATED_AT] = createdAt
    n[at + STATUS] = record.status
    n[at + STREAM] = record.stream === true ? 1 : 0
    n[at + PROMPT_TOKENS] = record.promptTokens
    n[at + COMPLETION_TOKENS] = record.completionTokens
    n[at + CACHED_TOKENS] = record.cachedTokens
    n[at + REASONING_TOKENS] = record.reasoningTokens
    n[at + ATTEMPTS] = record.attempts
    n[at + LATENCY_MS] = record.latencyMs
    nulls |= nullable(n, at + TTFT_MS, record.ttftMs, NULL_TTFT)
    nulls |= nullable(n, at + SAVED, record.promptTokensSaved, NULL_SAVED)
    nulls |= nullable(n, at + SAVED_NET, record.promptTokensSavedNet, NULL_SAVED_NET)
    nulls |= nullable(n, at + SHADOW_SAFE, record.shadowTokensSavedSafe, NULL_SHADOW_SAFE)
    nulls |= nullable(n, at + SHADOW_AGGRESSIVE, record.shadowTokensSavedAggressive, NULL_SHADOW_AGGRESSIVE)
    nulls |= nullable(n, at + SAVED_MICRO, record.compressionSavedMicro, NULL_SAVED_MICRO)
    const cost = record.cost
    if (cost === null) nulls |= NULL_COST
    else {
      n[at + COST_INPUT] = cost.input
      n[at + COST_CACHED_INPUT] = cost.cachedInput
      n[at + COST_CACHE_WRITE] = cost.cacheWrite
      n[at + COST_OUTPUT] = cost.output
      n[at + COST_TOTAL] = cost.total
    }
    this.#nulls[slot] = nulls
    const r = this.#references
    const ref = slot * REFERENCES
    r[ref + ID] = record.id
    r[ref + KIND] = record.kind
    r[ref + ORG_ID] = record.orgId
    r[ref + KEY_ID] = record.keyId
    r[ref + REQUESTED_MODEL] = this.#intern(record.requestedModel)
    r[ref + MODEL] = this.#intern(record.model)
    r[ref + PROVIDER] = record.provider
    r[ref + ERROR_CODE] = record.errorCode
    r[ref + COMPRESSION_LEVEL] = record.compressionLevel
    r[ref + USER_AGENT] = this.#intern(record.userAgent)
    r[ref + SESSION_ID] = this.#intern(record.sessionId)
    r[ref + PROMPT_TEXT] = record.promptText
    r[ref + COMPLETION_TEXT] = record.completionText
    r[ref + TAGS] = record.tags.length === 0 ? NO_VALUES : record.tags
    r[ref + SVC_TOOLS] = record.svcTools.length === 0 ? NO_VALUES : record.svcTools
    this.#length++
  }

  /** Removes the first `count` rows (at most all) and returns them as records, oldest first. */
  take(count: number): Array<RequestRecord> {
    const taken = Math.min(Math.max(0, count), this.#length)
    const rows = new Array<RequestRecord>(taken)
    for (let i = 0; i < taken; i++) {
      const slot = (this.#head + i) % this.#capacity
      rows[i] = this.#record(slot)
      // the queue lets go of the row's strings and lists at once
      const references = this.#references
      for (let k = slot * REFERENCES, end = k + REFERENCES; k < end; k++) references[k] = null
    }
    this.#head = this.#length === taken ? 0 : (this.#head + taken) % this.#capacity
    this.#length -= taken
    // an outage can grow the queue to its limit (18 MB of columns at 50,000 rows): not kept once drained
    if (this.#length === 0 && this.#capacity > INITIAL_CAPACITY * 4) this.#allocate(INITIAL_CAPACITY)
    return rows
  }

  #record(slot: number): RequestRecord {
    const n = this.#numbers
    const at = slot * NUMBERS
    const nulls = this.#nulls[slot]!
    const r = this.#references
    const ref = slot * REFERENCES
    return {
      id: r[ref + ID] as string,
      kind: r[ref + KIND] as RequestKind,
      createdAt: new Date(n[at + CREATED_AT]!),
      orgId: r[ref + ORG_ID] as string | null,
      keyId: r[ref + KEY_ID] as string | null,
      requestedModel: r[ref + REQUESTED_MODEL] as string | null,
      model: r[ref + MODEL] as string | null,
      provider: r[ref + PROVIDER] as string | null,
      status: n[at + STATUS]!,
      errorCode: r[ref + ERROR_CODE] as string | null,
      stream: n[at + STREAM] === 1,
      tags: r[ref + TAGS] as ReadonlyArray<string>,
      promptTokens: n[at + PROMPT_TOKENS]!,
      completionTokens: n[at + COMPLETION_TOKENS]!,
      cachedTokens: n[at + CACHED_TOKENS]!,
      reasoningTokens: n[at + REASONING_TOKENS]!,
      svcTools: r[ref + SVC_TOOLS] as ReadonlyArray<string>,
      attempts: n[at + ATTEMPTS]!,
      latencyMs: n[at + LATENCY_MS]!,
      ttftMs: (nulls & NULL_TTFT) === 0 ? n[at + TTFT_MS]! : null,
      compressionLevel: r[ref + COMPRESSION_LEVEL] as CompressionLevel | null,
      promptTokensSaved: (nulls & NULL_SAVED) === 0 ? n[at + SAVED]! : null,
      promptTokensSavedNet: (nulls & NULL_SAVED_NET) === 0 ? n[at + SAVED_NET]! : null,
      shadowTokensSavedSafe: (nulls & NULL_SHADOW_SAFE) === 0 ? n[at + SHADOW_SAFE]! : null,
      shadowTokensSavedAggressive: (nulls & NULL_SHADOW_AGGRESSIVE) === 0 ? n[at + SHADOW_AGGRESSIVE]! : null,
      compressionSavedMicro: (nulls & NULL_SAVED_MICRO) === 0 ? n[at + SAVED_MICRO]! : null,
      userAgent: r[ref + USER_AGENT] as string | null,
      cost: (nulls & NULL_COST) !== 0 ? null : {
        input: n[at + COST_INPUT]!,
        cachedInput: n[at + COST_CACHED_INPUT]!,
        cacheWrite: n[at + COST_CACHE_WRITE]!,
        output: n[at + COST_OUTPUT]!,
        total: n[at + COST_TOTAL]!
      },
      sessionId: r[ref + SESSION_ID] as string | null,
      promptText: r[ref + PROMPT_TEXT] as string | null,
      completionText: r[ref + COMPLETION_TEXT] as string | null
    }
  }

  /** The same string kept earlier, if any: a request's model and user agent are new strings each time. */
  #intern(value: string | null): string | null {
    if (value === null) return null
    const known = this.#interned.get(value)
    if (known !== undefined) return known
    if (this.#interned.size >= INTERN_LIMIT) this.#interned.clear()
    this.#interned.set(value, value)
    return value
  }

  /** Twice the room, the rows moved to its start in order. */
  #grow(): void {
    const numbers = this.#numbers
    const references = this.#references
    const nulls = this.#nulls
    const capacity = this.#capacity
    const head = this.#head
    this.#allocate(capacity * 2)
    for (let i = 0; i < this.#length; i++) {
      const slot = (head + i) % capacity
      this.#numbers.set(numbers.subarray(slot * NUMBERS, (slot + 1) * NUMBERS), i * NUMBERS)
      for (let k = 0; k < REFERENCES; k++) this.#references[i * REFERENCES + k] = references[slot * REFERENCES + k]
      this.#nulls[i] = nulls[slot]!
    }
  }

  /** Empty columns for `capacity` rows, the rows (if any) to be copied in from the start. */
  #allocate(capacity: number): void {
    this.#capacity = capacity
    this.#numbers = new Float64Array(capacity * NUMBERS)
    this.#references = new Array<unknown>(capacity * REFERENCES).fill(null)
    this.#nulls = new Uint8Array(capacity)
    this.#head = 0
  }
}
