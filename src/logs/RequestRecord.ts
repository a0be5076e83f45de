/**
 * One request as the request log keeps it: who called, what was asked and what answered, how it ended,
 * what it cost and how long it took. Built once per request at the edge, recorded off the hot path.
 */

import type { CompressionLevel } from "../kernel/CompressionLevel.ts"
import type { Cost } from "../prices/Cost.ts"

/**
 * What was asked: a chat answer (`completion`, every format's), a count of a request's input tokens
 * (`count_tokens`, which no upstream bills as a completion), or one shared tool run for an MCP client
 * (`svc_tool`, `POST /mcp`).
 */
export const REQUEST_KINDS = ["completion", "count_tokens", "svc_tool"] as const
export type RequestKind = (typeof REQUEST_KINDS)[number]

export interface RequestRecord {
  /** The request id (`x-request-id`), unique: a replayed row is inserted once. */
  readonly id: string
  readonly kind: RequestKind
  /** When the request arrived. */
  readonly createdAt: Date
  readonly orgId: string | null
  readonly keyId: string | null
  /** As the client addressed it (`author_id/model_id`). */
  readonly requestedModel: string | null
  /** As the provider reported it. */
  readonly model: string | null
  readonly provider: string | null
  /** The HTTP status answered; a stream that failed after its headers reports the error's status. */
  readonly status: number
  /** The OpenAI-shaped error code, when the request failed (`client_closed` when the client left). */
  readonly errorCode: string | null
  readonly stream: boolean
  readonly tags: ReadonlyArray<string>
  readonly promptTokens: number
  readonly completionTokens: number
  readonly cachedTokens: number
  readonly reasoningTokens: number
  /** Ids of the shared tools that ran, in order, once per run. */
  readonly svcTools: ReadonlyArray<string>
  /** Upstream calls made, failovers and tool rounds included. */
  readonly attempts: number
  readonly latencyMs: number
  /** Time to the first streamed content; null when not streamed or nothing came. */
  readonly ttftMs: number | null
  /** The compression level the request ran at; null when it was refused before one was chosen. */
  readonly compressionLevel: CompressionLevel | null
  /** o200k prompt tokens compression saved on the wire: 0 when nothing was (or no answer came); null without a level. */
  readonly promptTokensSaved: number | null
  /** The same priced with the answer's cache reads at a tenth, in fresh-input tokens. */
  readonly promptTokensSavedNet: number | null
  /** Under `shadow`: what `safe` and `aggressive` would have saved; null at other levels. */
  readonly shadowTokensSavedSafe: number | null
  readonly shadowTokensSavedAggressive: number | null
  /**
   * What compression saved in micro-dollars, net of prompt caching (`SavedDollars.ts`); null without a
   * level or when the price is unknown.
   */
  readonly compressionSavedMicro: number | null
  readonly userAgent: string | null
  /**
   * What the upstream calls cost, whole micro-dollars per part (every round and billed attempt at its own
   * target's price); null when nothing was billed or a price was unknown.
   */
  readonly cost: Cost | null
  /** The client's session: Claude Code's `X-Claude-Code-Session-Id`; null when it sent none. */
  readonly sessionId: string | null
  /** Only when the org opted in (`log_content`); null otherwise. */
  readonly promptText: string | null
  readonly completionText: string | null
}
