/**
 * A client's session id in the request log: which `X-Claude-Code-Session-Id` values are kept
 * (`sessionIdOf`), that `RequestDraft.finish` copies it into the record, and that spilled lines keep it
 * while lines spilled before sessions were logged read back as no session.
 */
import { assert, describe, it } from "@effect/vitest"
import { Option } from "effect"
import { RequestDraft, sessionIdOf, sessionOf } from "../../../src/logs/RequestDraft.ts"
import { parseLine } from "../../../src/logs/RequestLogSpill.ts"
import type { RequestRecord } from "../../../src/logs/RequestRecord.ts"

const record: RequestRecord = {
  id: "req_1",
  kind: "completion",
  cost: null,
  createdAt: new Date("2026-03-01T08:00:00.000Z"),
  orgId: "org_1",
  keyId: "key_1",
  requestedModel: "anthropic/claude",
  model: "claude-3",
  provider: "anthropic",
  status: 200,
  errorCode: null,
  stream: true,
  tags: [],
  promptTokens: 1,
  completionTokens: 2,
  cachedTokens: 0,
  reasoningTokens: 0,
  svcTools: [],
  attempts: 1,
  latencyMs: 10,
  ttftMs: 5,
  compressionLevel: null,
  promptTokensSaved: null,
  promptTokensSavedNet: null,
  shadowTokensSavedSafe: null,
  shadowTokensSavedAggressive: null,
  compressionSavedMicro: null,
  userAgent: "claude-cli/2.0.0",
  sessionId: "0b3c9a52-5f5e-4d6c-9a1e-2f7f3e0c1d2a",
  promptText: null,
  completionText: null
}

describe("sessionIdOf", () => {
  it("keeps up to 128 of [A-Za-z0-9_.:-], trimmed", () => {
    assert.strictEqual(sessionIdOf("0b3c9a52-5f5e-4d6c-9a1e-2f7f3e0c1d2a"), "0b3c9a52-5f5e-4d6c-9a1e-2f7f3e0c1d2a")
    assert.strictEqual(sessionIdOf("  sess_1.a:b-c \t"), "sess_1.a:b-c")
    assert.strictEqual(sessionIdOf("x".repeat(128)), "x".repeat(128))
  })

  it("anything else is no session", () => {
    for (const bad of [undefined, "", "   ", "x".repeat(129), "a b", "a,b", "a/b", "é", "a\nb", "<script>", "a;b"]) {
      assert.isNull(sessionIdOf(bad), JSON.stringify(bad))
    }
  })
})

describe("sessionOf", () => {
  it("the gateway's header first, then Claude Code's, then Codex's", () => {
    assert.strictEqual(sessionOf({ "x-svc-session-id": "mine", "x-claude-code-session-id": "cc" }), "mine")
    assert.strictEqual(sessionOf({ "x-claude-code-session-id": "cc", "session-id": "codex" }), "cc")
    assert.strictEqual(
      sessionOf({ "session-id": "01a21c19-62f0-7622-b0b0-cf60052c74ba" }),
      "01a21c19-62f0-7622-b0b0-cf60052c74ba"
    )
    assert.strictEqual(sessionOf({ session_id: "older-codex" }), "older-codex")
    // OpenCode's session id; Codex's wins over it, as a session-id header is Codex's own
    assert.strictEqual(sessionOf({ "x-session-id": "ses_4ca8e2b5bffe" }), "ses_4ca8e2b5bffe")
    assert.strictEqual(sessionOf({ "x-session-id": "ses_1", "session-id": "codex" }), "codex")
    assert.isNull(sessionOf({ "user-agent": "curl" }))
  })

  it("an unusable id in the first header found is no session, not the next header's", () => {
    assert.isNull(sessionOf({ "x-svc-session-id": "a b", "x-claude-code-session-id": "cc" }))
  })
})

describe("RequestDraft", () => {
  it("finish copies the session id into the record; none by default", () => {
    const entry = new RequestDraft("req_1", "claude-cli/2.0.0")
    assert.isNull(entry.sessionId)
    entry.sessionId = sessionIdOf("sess-42")
    const finished: RequestRecord = entry.finish(200, null)
    assert.strictEqual(finished.sessionId, "sess-42")
    assert.isNull(new RequestDraft("req_2", undefined).finish(200, null).sessionId)
  })
})

describe("spilled lines", () => {
  it("keep the session id", () => {
    assert.deepStrictEqual(parseLine(JSON.stringify(record)), Option.some(record))
    assert.deepStrictEqual(
      parseLine(JSON.stringify({ ...record, sessionId: null })),
      Option.some({ ...record, sessionId: null })
    )
  })

  it("a line spilled before sessions were logged reads as no session", () => {
    const { sessionId: _, ...before } = record
    assert.deepStrictEqual(parseLine(JSON.stringify(before)), Option.some({ ...record, sessionId: null }))
  })
})
