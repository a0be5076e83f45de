/**
 * What the edge learns about one request before its answer (who called, what was asked, with which
 * tags), turned into a `RequestRecord` once the response is finished, whole, streamed, failed or
 * abandoned by the client, together with what the request came to (the core's outcome).
 */
import type { CompressionFacts } from "../compression/RequestCompression.ts"
import type { Caller } from "../kernel/Caller.ts"
import { emptyUsage, type Usage } from "../kernel/Canonical.ts"
import type { CompressionLevel } from "../kernel/CompressionLevel.ts"
import type { Cost } from "../prices/Cost.ts"
import type { RequestKind, RequestRecord } from "./RequestRecord.ts"

/** What the core reports about an answered request; `Outcome` (and its streamed form) fits as is. */
export interface OutcomeFacts {
  readonly usage: Usage
  readonly attempts: number
  readonly toolRuns: ReadonlyArray<{ readonly id: string }>
  readonly provider: string
  readonly model: string
  /** When the first output reached the client (`performance.now()`); streams only. */
  readonly firstOutputAt?: number | undefined
  /** The answer's text, for orgs that keep content. */
  readonly text?: string | undefined
  /** What compression saved, once counted. */
  readonly compressionFacts?: CompressionFacts | undefined
  /** What the upstream calls cost; null: a price was unknown. */
  readonly cost?: Cost | null | undefined
}

/** A client's session id as the log keeps it: up to 128 of `[\w.:-]`, else none. */
export const sessionIdOf = (header: string | undefined): string | null => {
  const value = header?.trim()
  return value !== undefined && /^[\w.:-]{1,128}$/.test(value) ? value : null
}

/**
 * The headers that name a client's session, first found wins: the gateway's own, then each client's:
 * Claude Code's, Codex's (`session-id`, its thread id; older builds `session_id`), OpenCode's
 * (`x-session-id`, its `ses_...` id).
 */
export const SESSION_HEADERS = [
  "x-svc-session-id",
  "x-claude-code-session-id",
  "session-id",
  "x-session-id",
  "session_id"
] as const

/** The request's session, from the first of `SESSION_HEADERS` it sends; null: none, or not a usable id. */
export const sessionOf = (headers: Readonly<Record<string, string | undefined>>): string | null => {
  for (const name of SESSION_HEADERS) {
    const value = headers[name]
    if (value !== undefined) return sessionIdOf(value)
  }
  return null
}

export class RequestDraft {
  readonly id: string
  readonly kind: RequestKind
  readonly createdAt = new Date()
  readonly started = performance.now()
  readonly userAgent: string | null
  orgId: string | null = null
  keyId: string | null = null
  /** Prompt and completion text are kept only when the caller's org opted in. */
  keepContent = false
  requestedModel: string | null = null
  /** The provider, once the core chose one (a request that failed upstream still names it). */
  provider: string | null = null
  stream = false
  tags: ReadonlyArray<string> = []
  /** The client's session id, when it sends one (`sessionIdOf`). */
  sessionId: string | null = null
  promptText: string | null = null
  /** The compression level, once chosen. */
  compressionLevel: CompressionLevel | null = null

  constructor(id: string, userAgent: string | undefined, kind: RequestKind = "completion") {
    this.id = id
    this.kind = kind
    this.userAgent = userAgent ?? null
  }

  setCaller(caller: Caller): void {
    this.orgId = caller.orgId
    this.keyId = caller.keyId
    this.keepContent = caller.logContent
  }

  /**
   * What a request that failed used and cost upstream before it failed (a shared-tool loop's answered
   * rounds): its row keeps them, so failed requests' spend is counted.
   */
  billed: { readonly usage: Usage; readonly cost: Cost | null } | undefined

  finish(status: number, errorCode: string | null, answer?: OutcomeFacts): RequestRecord {
    const usage = answer?.usage ?? this.billed?.usage ?? emptyUsage
    const cost = answer === undefined ? this.billed?.cost ?? null : answer.cost ?? null
    const text = answer?.text
    return {
      id: this.id,
      kind: this.kind,
      createdAt: this.createdAt,
      orgId: this.orgId,
      keyId: this.keyId,
      requestedModel: this.requestedModel,
      model: answer === undefined || answer.model === "" ? null : answer.model,
      provider: answer?.provider ?? this.provider,
      status,
      errorCode,
      stream: this.stream,
      tags: this.tags,
      promptTokens: usage.promptTokens,
      completionTokens: usage.completionTokens,
      cachedTokens: usage.cachedTokens,
      reasoningTokens: usage.reasoningTokens,
      svcTools: answer === undefined ? [] : answer.toolRuns.map((run) => run.id),
      attempts: answer?.attempts ?? 0,
      latencyMs: performance.now() - this.started,
      ttftMs: answer?.firstOutputAt === undefined ? null : answer.firstOutputAt - this.started,
      compressionLevel: this.compressionLevel,
      // nothing counted (no answer, or nothing to compress) is 0 once a level was chosen
      promptTokensSaved: answer?.compressionFacts?.saved ?? (this.compressionLevel === null ? null : 0),
      promptTokensSavedNet: answer?.compressionFacts?.savedNet ?? (this.compressionLevel === null ? null : 0),
      shadowTokensSavedSafe: answer?.compressionFacts?.shadowSafe ?? null,
      shadowTokensSavedAggressive: answer?.compressionFacts?.shadowAggressive ?? null,
      compressionSavedMicro: this.compressionLevel === null || cost === null
        ? null
        : answer?.compressionFacts?.savedMicro ?? 0,
      userAgent: this.userAgent,
      sessionId: this.sessionId,
      cost,
      promptText: this.keepContent ? this.promptText : null,
      completionText: this.keepContent && text !== undefined && text !== "" ? text : null
    }
  }
}
