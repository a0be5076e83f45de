/** Random identifiers: a readable prefix and base62 characters from the CSPRNG. */
import { randomBytes } from "node:crypto"

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// one CSPRNG call per 4 KiB of ids instead of one per id: ids are minted on every request
const POOL_SIZE = 4096
let pool = randomBytes(POOL_SIZE)
let offset = 0

const nextByte = (): number => {
  if (offset === POOL_SIZE) {
    pool = randomBytes(POOL_SIZE)
    offset = 0
  }
  return pool[offset++]!
}

/** `length` base62 characters; rejection sampling keeps every character equally likely. */
export const randomBase62 = (length: number): string => {
  let out = ""
  while (out.length < length) {
    const byte = nextByte()
    if (byte < 248) out += ALPHABET[byte % 62]
  }
  return out
}

export const newId = (prefix: string): string => `${prefix}_${randomBase62(20)}`
