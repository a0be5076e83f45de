/**
 * Random identifiers: a readable prefix (a short ASCII literal) and base62 characters from the CSPRNG.
 * An id is written into a buffer and read out as one string: built by `+=`, it was a tree of pieces,
 * an object per character, until something read it whole, and a request id waits in the request log's
 * queue long enough for the collector to promote it, every piece with it.
 */
import { randomFillSync } from "node:crypto"

const ALPHABET = Buffer.from("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", "latin1")

// one CSPRNG call per 16 KiB of ids instead of one per id (ids are minted on every request, about 40
// bytes of them), refilled in place: a fresh 4 KiB buffer each time cost 0.2-0.5 us a request in
// profiles under load, in place 0.07
const POOL_SIZE = 16 * 1024
const pool = randomFillSync(Buffer.allocUnsafeSlow(POOL_SIZE))
let offset = 0

const nextByte = (): number => {
  if (offset === POOL_SIZE) {
    randomFillSync(pool)
    offset = 0
  }
  return pool[offset++]!
}

const scratch = Buffer.allocUnsafe(256)

/** Writes `length` base62 characters into `buffer` at `at`; rejection sampling keeps every one equally likely. */
const writeRandom = (buffer: Buffer, at: number, length: number): number => {
  const end = at + length
  while (at < end) {
    const byte = nextByte()
    if (byte < 248) buffer[at++] = ALPHABET[byte % 62]!
  }
  return end
}

/** `length` base62 characters. */
export const randomBase62 = (length: number): string => {
  const buffer = length <= scratch.length ? scratch : Buffer.allocUnsafe(length)
  return buffer.toString("latin1", 0, writeRandom(buffer, 0, length))
}

/** `prefix` (ASCII) and `_`, written at the start of the scratch buffer; returns the end. */
const writePrefix = (prefix: string): number => {
  const at = scratch.write(prefix, 0, "latin1")
  scratch[at] = 0x5f // _
  return at + 1
}

export const newId = (prefix: string): string =>
  scratch.toString("latin1", 0, writeRandom(scratch, writePrefix(prefix), 20))

/**
 * An id whose text sorts by the millisecond it was minted in: 9 base-36 characters of time (digits and
 * lower-case letters, which sort alike in every collation; enough until the year 5188), then 14 random
 * base62 ones. Rows keyed by such ids go to the end of their B-tree index instead of anywhere in it,
 * which made a batch insert of request-log rows about 10 % cheaper for PostgreSQL.
 */
export const newTimeOrderedId = (prefix: string, now: number = Date.now()): string => {
  const at = writePrefix(prefix)
  return scratch.toString("latin1", 0, writeRandom(scratch, writeTime(at, now), 14))
}

/** What follows an ordered id's prefix and `_`: its time, then its random part. */
const ORDERED_REST = /^[0-9a-z]{9}[0-9A-Za-z]{14}$/

/**
 * The millisecond `newTimeOrderedId(prefix)` minted `id` in; undefined for an id of another shape (one
 * of `newId`'s, as request ids were before 2026-11-22, or one a client made up).
 */
export const timeOfOrderedId = (id: string, prefix: string): number | undefined => {
  const start = prefix.length + 1
  if (id.length !== start + 23 || !id.startsWith(prefix) || id[prefix.length] !== "_") return undefined
  const rest = id.slice(start)
  return ORDERED_REST.test(rest) ? Number.parseInt(rest.slice(0, 9), 36) : undefined
}

const BASE36 = Buffer.from("0123456789abcdefghijklmnopqrstuvwxyz", "latin1")

/**
 * `now` as `now.toString(36).padStart(9, "0")` would spell it, written at `at`; returns the end. Digit
 * by digit: through a string, the time took 0.18 us of an id's 0.33; this way an id takes 0.22.
 */
const writeTime = (at: number, now: number): number => {
  let rest = Math.max(0, Math.floor(now))
  for (let i = at + 8; i >= at; i--) {
    scratch[i] = BASE36[rest % 36]!
    rest = Math.floor(rest / 36)
  }
  return at + 9
}
