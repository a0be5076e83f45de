/** What `redactSecrets` takes out of an upstream's message, and what it leaves. */
import { assert, describe, it } from "@effect/vitest"
import { configuredSecrets, redactSecrets } from "../../../src/providers/Secrets.ts"

describe("redactSecrets", () => {
  it("takes out the configured secrets wherever they appear", () => {
    assert.strictEqual(
      redactSecrets("Incorrect API key provided: my-local-key-123. (my-local-key-123)", ["my-local-key-123"]),
      "Incorrect API key provided: [redacted]. ([redacted])"
    )
  })

  it("takes out what is shaped like a credential, known or not", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["header was Authorization: Bearer abc.def-ghi_jkl", "header was Authorization: Bearer [redacted]"],
      ["key sk-proj-AbCdEf0123456789xyz is invalid", "key [redacted] is invalid"],
      ["x-api-key sk-ant-api03-ABCDEFGHIJKLMNOP rejected", "x-api-key [redacted] rejected"],
      ["groq gsk_0123456789abcdefXYZ", "groq [redacted]"],
      ["google AIzaSyA-0123456789abcdefghijklmnopqrstu end", "google [redacted] end"],
      ["gh ghp_0123456789abcdefghijABCDEFGHIJ", "gh [redacted]"],
      ["jwt eyJhbGciOiJI.eyJzdWIiOiIxMjM0.SflKxwRJSMeKKF2QT4", "jwt [redacted]"]
    ]
    for (const [text, redacted] of cases) assert.strictEqual(redactSecrets(text), redacted, text)
  })

  it("leaves ordinary messages, short known values and model names alone", () => {
    const text = "The model 'gpt-4o-mini' does not exist or you do not have access to it (task-level sk-1)."
    assert.strictEqual(redactSecrets(text, ["short", ""]), text)
  })
})

describe("configuredSecrets", () => {
  it("the API key and the values of headers named like credentials", () => {
    assert.deepStrictEqual(
      configuredSecrets("sk-key", { "x-team": "platform", "X-Api-Key": "hdr-secret", authorization: "Basic abc" }),
      ["sk-key", "hdr-secret", "Basic abc"]
    )
    assert.deepStrictEqual(configuredSecrets(undefined, {}), [])
  })
})
