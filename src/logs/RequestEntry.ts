/**
 * What the edge learns about one request as it goes (who called, what model answered, usage, tools,
 * timings), turned into a `RequestRecord` once the response is finished: whole, streamed, failed or
 * abandoned by the client.
 */
import type { Caller } from "../kernel/Caller.ts"
import { emptyUsage, type Usage } from "../kernel/ChatWire.ts"
import type { RequestRecord } from "./RequestRecord.ts"

export class RequestEntry {
  readonly id: string
  readonly createdAt = new Date()
  readonly started = performance.now()
  readonly userAgent: string | null
  orgId: string | null = null
  keyId: string | null = null
  /** Prompt and completion text are kept only when the caller's org opted in. */
  keepContent = false
  requestedModel: string | null = null
  model: string | null = null
  provider: string | null = null
  stream = false
  tags: ReadonlyArray<string> = []
  usage: Usage = emptyUsage
  svcTools: ReadonlyArray<string> = []
  attempts = 0
  ttftMs: number | null = null
  promptText: string | null = null
  private completion: Array<string> = []

  constructor(id: string, userAgent: string | undefined) {
    this.id = id
    this.userAgent = userAgent ?? null
  }

  setCaller(caller: Caller): void {
    this.orgId = caller.orgId
    this.keyId = caller.keyId
    this.keepContent = caller.logContent
  }

  /** The first content reached the client: time to first token. */
  firstContent(): void {
    if (this.ttftMs === null) this.ttftMs = performance.now() - this.started
  }

  addCompletionText(text: string): void {
    if (this.keepContent) this.completion.push(text)
  }

  finish(status: number, errorCode: string | null): RequestRecord {
    return {
      id: this.id,
      createdAt: this.createdAt,
      orgId: this.orgId,
      keyId: this.keyId,
      requestedModel: this.requestedModel,
      model: this.model,
      provider: this.provider,
      status,
      errorCode,
      stream: this.stream,
      tags: this.tags,
      promptTokens: this.usage.promptTokens,
      completionTokens: this.usage.completionTokens,
      cachedTokens: this.usage.cachedTokens,
      reasoningTokens: this.usage.reasoningTokens,
      svcTools: this.svcTools,
      attempts: this.attempts,
      latencyMs: performance.now() - this.started,
      ttftMs: this.ttftMs,
      compressionSavedTokens: null,
      userAgent: this.userAgent,
      promptText: this.keepContent ? this.promptText : null,
      completionText: this.keepContent && this.completion.length > 0 ? this.completion.join("") : null
    }
  }
}
