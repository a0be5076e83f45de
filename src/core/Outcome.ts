/**
 * What a request came to, as one value the core returns: the tokens summed over every round, the
 * upstream calls made (failovers and tool rounds included), the shared tools that ran, the pending id
 * of a mixed turn, and which provider and model answered. A whole answer carries it with its
 * completion; a streamed one hands it over once its last chunk has gone (`StreamAnswer.outcome`).
 *
 * The family, from the core to the log: `Outcome` (and `StreamOutcome`, with what only a stream knows)
 * is what it came to; `WholeAnswer` and `StreamAnswer` are how the client gets it; the log reads an
 * outcome as `OutcomeFacts`, fills the request's `RequestDraft` with them and records the finished
 * `RequestRecord` (`logs/`).
 */
import type { CompressionReport } from "../compression/RequestCompression.ts"
import type { Completion, CompletionChunk, Usage } from "../kernel/Canonical.ts"
import type { ChunkPull } from "../kernel/ChunkPull.ts"
import type { Cost } from "../prices/Cost.ts"
import type { ModelPrice } from "../prices/ModelPrice.ts"
import type { ToolRunResult } from "../tools/ToolRunner.ts"

/** One shared-tool run, as the answer and the log report it. */
export interface ToolRunRecord {
  readonly id: string
  readonly outcome: ToolRunResult["outcome"]
  readonly round: number
}

export interface Outcome {
  readonly usage: Usage
  /** Upstream calls over every round, failovers included. */
  readonly attempts: number
  readonly rounds: number
  readonly toolRuns: ReadonlyArray<ToolRunRecord>
  /** Set when the answer ends a mixed turn that the client continues with it. */
  readonly svcPendingId: string | undefined
  /** The configured provider that answered (the first round's target). */
  readonly provider: string
  /** The model the upstream says answered; empty when it never said. */
  readonly model: string
  /**
   * What was left out on the way, as dotted field names: what the client sent that the gateway's model
   * cannot carry, and what the answering target cannot take (`x-svc-dropped-fields`).
   */
  readonly dropped: ReadonlyArray<string>
  /** What compressing the upstream requests saved (counted while the upstream works); absent: off. */
  readonly compression?: CompressionReport | undefined
  /**
   * What the upstream calls cost: every round, each at the price of the target that answered it; null
   * when a target's price is unknown (`prices/Prices.ts`).
   */
  readonly cost: Cost | null
  /** The price of the first round's target, for what compression saved in money; null: unknown. */
  readonly price?: ModelPrice | null | undefined
}

/** A whole answer: the last round's completion (its usage summed over every round) and the outcome. */
export interface WholeAnswer extends Outcome {
  readonly completion: Completion
}

/** A streamed answer: the chunks the client should see, then what it came to. */
export interface StreamAnswer<E> {
  /** The provider whose answer is streaming (known once the first chunk arrived). */
  readonly provider: string
  /** The model id that provider was asked for. */
  readonly model: string
  readonly chunks: ChunkPull<CompletionChunk, E>
  /** Complete once `chunks` has ended; before that, what is known so far. */
  readonly outcome: () => StreamOutcome
}

export interface StreamOutcome extends Outcome {
  /** When the first text or tool call went to the client (`performance.now()`), for time to first token. */
  readonly firstOutputAt: number | undefined
  /** The text the client was sent, over every round. */
  readonly text: string
}
