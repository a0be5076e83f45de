/**
 * Credentials sealed for the store: opened with the same key, not with another, not when tampered
 * with; each seal different (a fresh IV); nothing sealed without a key.
 */
import { describe, expect, it } from "vitest"
import { SecretSeal } from "../../src/store/SecretSeal.ts"

describe("secret seal", () => {
  const seal = SecretSeal.make("one key, long enough")

  it("opens what it sealed, and hides it", () => {
    const sealed = seal.seal!(JSON.stringify({ Authorization: "Bearer s3cret" }))
    expect(sealed).not.toContain("s3cret")
    expect(sealed.startsWith("v1.")).toBe(true)
    expect(seal.open(sealed)).toBe(JSON.stringify({ Authorization: "Bearer s3cret" }))
    expect(seal.seal!("same")).not.toBe(seal.seal!("same"))
  })

  it("does not open under another key, or once tampered with", () => {
    const sealed = seal.seal!("secret")
    expect(SecretSeal.make("another key entirely").open(sealed)).toBeUndefined()
    const parts = sealed.split(".")
    const body = parts[3]!
    const middle = Math.floor(body.length / 2)
    const other = body[middle] === "A" ? "B" : "A"
    const flipped = [...parts.slice(0, 3), `${body.slice(0, middle)}${other}${body.slice(middle + 1)}`].join(".")
    expect(seal.open(flipped)).toBeUndefined()
    expect(seal.open("not sealed at all")).toBeUndefined()
  })

  it("seals nothing without a key", () => {
    expect(SecretSeal.make(undefined).seal).toBeUndefined()
  })
})
