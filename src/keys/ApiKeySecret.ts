/**
 * API key secrets. A key is 40 base62 characters from the CSPRNG (about 238 bits) behind a readable
 * prefix; only its SHA-256 is stored. A slow password hash buys nothing for a secret this random, and
 * a fast one keeps authentication off the hot path's budget.
 */
import { hash } from "node:crypto"
import { randomBase62 } from "../Ids.ts"

const SCHEME = "sk-svc-"

export interface NewSecret {
  readonly key: string
  readonly hash: string
  /** What listings show so a person can tell keys apart: the scheme and the first characters. */
  readonly prefix: string
}

// the one-shot form: no Hash object per request
export const hashSecret = (key: string): string => hash("sha256", key, "hex")

export const generateSecret = (): NewSecret => {
  const key = `${SCHEME}${randomBase62(40)}`
  return { key, hash: hashSecret(key), prefix: key.slice(0, SCHEME.length + 6) }
}
