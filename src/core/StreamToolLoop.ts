/**
 * The shared-tool loop inside one streamed response. Text deltas go out as they arrive; shared tool-call
 * deltas are never sent to the client; client tool-call deltas go out re-indexed from 0. Each round's
 * finish is held back until the round is over: when it asked only for shared tools, they run and the
 * next round streams on in the same response; otherwise the finish goes out (with `svc_pending_id` for a
 * mixed turn). Per-round usage is held back too and sent once, summed, as the last chunk.
 */
import { Effect } from "effect"
import type { SqlError } from "effect/sql"
import {
  addUsage,
  type ChatMessage,
  type ChunkChoice,
  type CompletionChunk,
  emptyUsage,
  type NativeDetail,
  type ToolCall,
  type ToolCallDelta,
  type Usage
} from "../kernel/Canonical.ts"
import { type ChunkPull, mapPullThen, pullOnce } from "../kernel/ChunkPull.ts"
import type { ProviderError } from "../providers/ProviderError.ts"
import type { Outcome } from "./Outcome.ts"
import type { LoopSettings, ToolRunRecord } from "./ToolLoop.ts"
import type { ToolLoopError } from "./ToolLoopError.ts"
import { decideRound, type RoundDecision } from "./ToolRound.ts"
import { isSharedCall } from "./ToolTurns.ts"

/** What the loop knows of the request so far; the whole of it once the stream has ended. */
export interface LoopProgress
  extends Pick<Outcome, "usage" | "rounds" | "attempts" | "toolRuns" | "svcPendingId" | "model">
{
  /** When the first text or tool call went to the client (`performance.now()`), for time to first token. */
  readonly firstOutputAt: number | undefined
  /** The text the client was sent, every round's. */
  readonly text: string
  /** Each round's usage, in order (the round under way: what its upstream reported so far). */
  readonly roundUsages: ReadonlyArray<Usage>
}

/** Whether a forwarded chunk gives the client output: text, or a tool call. */
const hasOutput = (chunk: CompletionChunk): boolean => {
  for (const choice of chunk.choices) {
    const content = choice.delta.content
    if ((typeof content === "string" && content !== "") || choice.delta.tool_calls !== undefined) return true
  }
  return false
}

type LoopError = ProviderError | ToolLoopError | SqlError.SqlError

/** One round's answer, opened: its chunks and the upstream calls it took (failovers included). */
export interface OpenedRound {
  readonly pull: ChunkPull<CompletionChunk, ProviderError>
  readonly attempts: number
}

interface PartialCall {
  id: string
  name: string
  arguments: string
  /** Undefined until the call's name arrives: some upstreams send the id first. */
  shared: boolean | undefined
  clientIndex: number
  /** Deltas seen before the name, held until it says whose call this is. */
  held: Array<ToolCallDelta>
}

const PLAIN_DELTA_KEYS: ReadonlySet<string> = new Set(["role", "content", "refusal"])

/** A delta key other than role, content and refusal (such as `audio`) makes a delta worth sending. */
const hasOtherKey = (delta: object): boolean => {
  for (const key in delta) if (!PLAIN_DELTA_KEYS.has(key)) return true
  return false
}

/**
 * Whether a choice holds only `index`, `delta` and `finish_reason` and its delta only `role` and `content`:
 * nearly every streamed event. Those take a path that builds small objects of one shape, rather than
 * object rest and spread, which cost more than decoding the event.
 */
const isPlain = (choice: ChunkChoice): boolean => {
  for (const key in choice) if (key !== "index" && key !== "delta" && key !== "finish_reason") return false
  for (const key in choice.delta) if (key !== "role" && key !== "content") return false
  return true
}

/** Follows one round's chunks: forwards what the client should see, keeps what the loop needs. */
class Round {
  text = ""
  /** The round's thinking and the signature that closed it, for the next round's history. */
  reasoning = ""
  signature = ""
  finishReason: string | null = null
  /** The upstream's finishing choice and chunk fields (`logprobs`, `system_fingerprint`), kept for the finish. */
  finishChoice: Omit<ChunkChoice, "delta" | "finish_reason"> = { index: 0 }
  finishExtra: Readonly<Record<string, unknown>> = {}
  usage: Usage | undefined
  model = ""
  /** The upstream's own terms for how the round ended (Anthropic's stop reason), for a client of that format. */
  native: NativeDetail | undefined
  readonly calls = new Map<number, PartialCall>()
  private clientCalls = 0

  readonly number: number

  constructor(number: number) {
    this.number = number
  }

  /** Decides a call's owner once its name is known; a client call's held deltas go out then. */
  private classify(call: PartialCall, forwarded: Array<ToolCallDelta>) {
    call.shared = isSharedCall(call.name)
    if (call.shared) {
      call.held = []
      return
    }
    call.clientIndex = this.clientCalls++
    for (const held of call.held) forwarded.push({ ...held, index: call.clientIndex })
    call.held = []
  }

  private toolDeltas(deltas: ReadonlyArray<ToolCallDelta>): ReadonlyArray<ToolCallDelta> {
    const forwarded: Array<ToolCallDelta> = []
    for (const delta of deltas) {
      let call = this.calls.get(delta.index)
      if (call === undefined) {
        call = { id: "", name: "", arguments: "", shared: undefined, clientIndex: -1, held: [] }
        this.calls.set(delta.index, call)
      }
      if (delta.id !== undefined) call.id = delta.id
      if (delta.function?.name !== undefined && delta.function.name !== "") call.name = delta.function.name
      call.arguments += delta.function?.arguments ?? ""
      if (call.shared === undefined) {
        call.held.push(delta)
        if (call.name !== "") this.classify(call, forwarded)
      } else if (!call.shared) {
        forwarded.push({ ...delta, index: call.clientIndex })
      }
    }
    return forwarded
  }

  /** Calls whose name never came are the client's: their held deltas, before the finish. */
  undecided(): CompletionChunk | undefined {
    const forwarded: Array<ToolCallDelta> = []
    for (const call of this.calls.values()) if (call.shared === undefined) this.classify(call, forwarded)
    if (forwarded.length === 0) return undefined
    return {
      model: this.model,
      choices: [{ index: 0, delta: { tool_calls: forwarded }, finish_reason: null }],
      usage: undefined,
      extra: {}
    }
  }

  private choice(choice: ChunkChoice, extra: Readonly<Record<string, unknown>>): ChunkChoice | undefined {
    // only the first choice is looped; others (n > 1) pass as they are
    if (choice.index !== 0) return choice
    if (isPlain(choice)) return this.plainChoice(choice, extra)
    const { delta: _delta, finish_reason: _finish, ...rest } = choice
    if (choice.finish_reason !== undefined && choice.finish_reason !== null) {
      this.finishReason = choice.finish_reason
      this.finishChoice = rest
      this.finishExtra = extra
    }
    const { role, tool_calls, ...delta } = choice.delta
    if (typeof delta.content === "string") this.text += delta.content
    if (typeof delta["reasoning_content"] === "string") this.reasoning += delta["reasoning_content"]
    if (typeof delta["reasoning_signature"] === "string") this.signature += delta["reasoning_signature"]
    const calls = tool_calls === undefined ? [] : this.toolDeltas(tool_calls)
    const out = {
      ...(role !== undefined && this.number === 1 ? { role } : {}),
      ...delta,
      ...(calls.length > 0 ? { tool_calls: calls } : {})
    }
    const meaningful = out.role !== undefined || (out.content ?? "") !== "" || calls.length > 0 ||
      (out.refusal ?? "") !== "" || hasOtherKey(out)
    // the finish is held back until the round is over; until then every choice says it has not finished
    return meaningful ? { ...rest, delta: out, finish_reason: null } : undefined
  }

  /** `choice` for a plain one (see `isPlain`): the same output, built directly. */
  private plainChoice(choice: ChunkChoice, extra: Readonly<Record<string, unknown>>): ChunkChoice | undefined {
    const finish = choice.finish_reason
    if (finish !== undefined && finish !== null) {
      this.finishReason = finish
      this.finishChoice = { index: choice.index }
      this.finishExtra = extra
    }
    const { content, role } = choice.delta
    if (typeof content === "string") this.text += content
    if (role === undefined || this.number > 1) {
      return typeof content === "string" && content !== ""
        ? { index: choice.index, delta: { content }, finish_reason: null }
        : undefined
    }
    return { index: choice.index, delta: content === undefined ? { role } : { role, content }, finish_reason: null }
  }

  /** The chunk the client should see, if any; usage and the first choice's finish are held back. */
  forward(chunk: CompletionChunk): CompletionChunk | undefined {
    if (chunk.model !== "") this.model = chunk.model
    if (chunk.usage !== undefined) this.usage = chunk.usage
    if (chunk.native !== undefined) this.native = chunk.native
    let choices: Array<ChunkChoice> | undefined
    for (const choice of chunk.choices) {
      const out = this.choice(choice, chunk.extra)
      if (out !== undefined) (choices ??= []).push(out)
    }
    return choices === undefined ? undefined : { model: chunk.model, choices, usage: undefined, extra: chunk.extra }
  }

  /** Every call of the round, in the model's order. */
  toolCalls(): ReadonlyArray<ToolCall> {
    return [...this.calls.values()].map((call) => ({
      id: call.id,
      type: "function" as const,
      function: { name: call.name, arguments: call.arguments }
    }))
  }

  /** The round's assistant message for the next round's history; the loop sets its tool calls. */
  assistant(): ChatMessage {
    const content = this.text === "" ? null : this.text
    if (this.reasoning === "" && this.signature === "") return { role: "assistant", content }
    return {
      role: "assistant",
      content,
      reasoning_content: this.reasoning,
      thinking_blocks: [{ type: "thinking", thinking: this.reasoning, signature: this.signature }]
    }
  }

  finishChunk(reason: string): CompletionChunk {
    return {
      model: this.model,
      choices: [{ ...this.finishChoice, index: 0, delta: {}, finish_reason: reason }],
      usage: undefined,
      extra: this.finishExtra,
      native: this.native
    }
  }
}

/**
 * The loop over pulls: `first` is the first model call's answer, `openRound` makes the next call after
 * shared tools ran. `chunks` is what the client should see; `progress()` what the request came to, whole
 * once `chunks` has ended.
 */
export const pullWithTools = <R>(
  settings: LoopSettings,
  { first, messages, openRound }: {
    /** The conversation the first round answers. */
    readonly messages: ReadonlyArray<ChatMessage>
    readonly first: OpenedRound
    /** The next model call, over the conversation with the shared tools' turns appended. */
    readonly openRound: (messages: ReadonlyArray<ChatMessage>) => Effect.Effect<OpenedRound, ProviderError, R>
  }
): {
  readonly chunks: ChunkPull<CompletionChunk, LoopError, R>
  readonly progress: () => LoopProgress
} => {
  // the loop's own state, written only here; `progress` hands out copies
  let usage: Usage = emptyUsage
  let rounds = 1
  let attempts = first.attempts
  let svcPendingId: string | undefined
  let model = ""
  let text = ""
  let firstOutputAt: number | undefined
  let current: Round | undefined
  const toolRuns: Array<ToolRunRecord> = []
  const roundUsages: Array<Usage> = []

  const usageChunk = (): CompletionChunk => ({ model: "", choices: [], usage, extra: {} })

  const round = (
    number: number,
    history: ReadonlyArray<ChatMessage>,
    upstream: ChunkPull<CompletionChunk, ProviderError>
  ): ChunkPull<CompletionChunk, LoopError, R> => {
    const state = new Round(number)
    current = state
    rounds = number
    // a round without shared tool calls (nearly all) ends without an effect: no fiber work per request
    const afterRound = () => {
      usage = addUsage(usage, state.usage ?? emptyUsage)
      roundUsages.push(state.usage ?? emptyUsage)
      if (state.model !== "") model = state.model
      text += state.text
      current = undefined
      const undecided = state.undecided()
      // the last round's finish, then the summed usage as the stream's last chunk
      const finish = (reason: string): ReadonlyArray<CompletionChunk> => {
        const last = [state.finishChunk(reason), usageChunk()]
        return undecided === undefined ? last : [undecided, ...last]
      }
      const decided = decideRound(settings, {
        number,
        history,
        clientTurns: messages.length,
        assistant: state.assistant(),
        calls: state.toolCalls()
      }, toolRuns)
      const next = (
        decision: RoundDecision
      ): ReadonlyArray<CompletionChunk> | Effect.Effect<ChunkPull<CompletionChunk, LoopError, R>, LoopError, R> => {
        switch (decision._tag) {
          case "Final":
            return finish(state.finishReason ?? "stop")
          case "Pending":
            svcPendingId = decision.svcPendingId
            return finish("tool_calls")
          case "Continue":
            return Effect.map(openRound(decision.history), (opened) => {
              attempts += opened.attempts
              return round(number + 1, decision.history, opened.pull)
            })
        }
      }
      if (!Effect.isEffect(decided)) return next(decided)
      return Effect.flatMap(decided, (decision) => {
        const after = next(decision)
        return Effect.isEffect(after) ? after : Effect.succeed(pullOnce(after))
      })
    }
    return mapPullThen(upstream, (chunks) => {
      const out: Array<CompletionChunk> = []
      for (const chunk of chunks) {
        const forwarded = state.forward(chunk)
        if (forwarded === undefined) continue
        if (firstOutputAt === undefined && hasOutput(forwarded)) firstOutputAt = performance.now()
        out.push(forwarded)
      }
      return out
    }, afterRound)
  }

  const progress = (): LoopProgress => ({
    // the round under way counts what its upstream reported so far (an input count at its start)
    usage: current?.usage === undefined ? usage : addUsage(usage, current.usage),
    rounds,
    attempts,
    toolRuns: [...toolRuns],
    svcPendingId,
    model: current !== undefined && current.model !== "" ? current.model : model,
    firstOutputAt,
    text: current === undefined ? text : text + current.text,
    roundUsages: current?.usage === undefined ? [...roundUsages] : [...roundUsages, current.usage]
  })
  return { chunks: round(1, messages, first.pull), progress }
}
