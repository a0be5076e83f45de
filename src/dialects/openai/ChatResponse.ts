/**
 * The OpenAI wire shapes the client receives: a whole `chat.completion`, or a stream of
 * `chat.completion.chunk` objects that share one `id` and `created`, start with the role, keep
 * tool-call indexes, and carry usage only on a last `choices: []` chunk when the client asked for it.
 */
import { type Completion, type CompletionChunk, emptyUsage, renderUsage, type Usage } from "../../kernel/Canonical.ts"
import { type ChunkPull, mapPullThen } from "../../kernel/ChunkPull.ts"

export interface ResponseIdentity {
  readonly id: string
  readonly created: number
  /** The model as the client addressed it. */
  readonly model: string
}

/** The gateway's own top-level fields: which shared tools ran, and the pending id of a mixed turn. */
export interface SharedToolReport {
  readonly toolRuns: ReadonlyArray<{ readonly id: string; readonly outcome: string; readonly round: number }>
  readonly svcPendingId: string | undefined
}

export const renderSharedToolReport = (report: SharedToolReport): Record<string, unknown> => ({
  ...(report.toolRuns.length > 0 ? { svc_tool_runs: report.toolRuns } : {}),
  ...(report.svcPendingId === undefined ? {} : { svc_pending_id: report.svcPendingId })
})

export const renderCompletion = (identity: ResponseIdentity, completion: Completion, report?: SharedToolReport) => ({
  id: identity.id,
  object: "chat.completion",
  created: identity.created,
  model: identity.model,
  choices: completion.choices,
  usage: renderUsage(completion.usage),
  ...completion.extra,
  ...(report === undefined ? {} : renderSharedToolReport(report))
})

const isEmpty = (record: Readonly<Record<string, unknown>>): boolean => {
  for (const _ in record) return false
  return true
}

const chunkEnvelope = (identity: ResponseIdentity) => ({
  id: identity.id,
  object: "chat.completion.chunk",
  created: identity.created,
  model: identity.model
})

/**
 * Wire chunks from the core's chunks, each written by `emit` (an object for tests, an SSE frame for the
 * wire). Usage is held back from every chunk and, when `includeUsage`, sent once at the end; `onUsage`
 * sees the last usage reported. `trailer` adds fields to the last chunk (`svc_pending_id`): the usage
 * chunk, or a `choices: []` chunk of its own when usage was not asked for; `end` follows it (`[DONE]`).
 */
interface RenderOptions<B> {
  readonly identity: ResponseIdentity
  readonly includeUsage: boolean
  /** Writes one wire chunk: an object for tests, an SSE frame for the wire. */
  readonly emit: (event: object) => B
  /** What follows the last chunk (`[DONE]`). */
  readonly end: ReadonlyArray<B>
  readonly onUsage?: ((usage: Usage) => void) | undefined
  readonly trailer?: (() => Record<string, unknown>) | undefined
  /** The frame of a chunk that is one plain text delta, written without building its object. */
  readonly plainText?: ((content: string) => B) | undefined
}

const noUsage = () => {}
const noTrailer = () => ({})

const renderWith = <B, E, R>(
  chunks: ChunkPull<CompletionChunk, E, R>,
  options: RenderOptions<B>
): ChunkPull<B, E, R> => {
  const { emit, end, identity, includeUsage, plainText } = options
  const onUsage = options.onUsage ?? noUsage
  const trailer = options.trailer ?? noTrailer
  const envelope = chunkEnvelope(identity)
  const roleSent = new Set<number>()
  let usage: Usage | undefined
  const render = (chunk: CompletionChunk): B | undefined => {
    if (chunk.usage !== undefined) {
      usage = chunk.usage
      onUsage(chunk.usage)
    }
    if (chunk.choices.length === 0) return undefined
    if (plainText !== undefined) {
      const content = plainContent(chunk)
      if (content !== undefined && roleSent.has(0)) return plainText(content)
    }
    const choices = chunk.choices.map((choice) => {
      if (roleSent.has(choice.index)) return choice
      roleSent.add(choice.index)
      return choice.delta.role === undefined ? { ...choice, delta: { role: "assistant", ...choice.delta } } : choice
    })
    // one object shape for the usual chunk with no extra fields: cheaper to build and to serialise
    if (isEmpty(chunk.extra)) {
      return emit({
        id: envelope.id,
        object: envelope.object,
        created: envelope.created,
        model: envelope.model,
        choices
      })
    }
    return emit({ ...envelope, ...chunk.extra, choices })
  }
  return mapPullThen(chunks, (part) => {
    const out: Array<B> = []
    for (const chunk of part) {
      const rendered = render(chunk)
      if (rendered !== undefined) out.push(rendered)
    }
    return out
  }, () => {
    const extra = trailer()
    if (includeUsage) {
      return [emit({ ...envelope, choices: [], usage: renderUsage(usage ?? emptyUsage), ...extra }), ...end]
    }
    return Object.keys(extra).length === 0 ? end : [emit({ ...envelope, choices: [], ...extra }), ...end]
  })
}

/** The wire chunks as objects (what each SSE event's data holds). */
export const renderPull = <E, R>(
  chunks: ChunkPull<CompletionChunk, E, R>,
  options: {
    readonly identity: ResponseIdentity
    readonly includeUsage: boolean
    readonly onUsage?: ((usage: Usage) => void) | undefined
    readonly trailer?: (() => Record<string, unknown>) | undefined
  }
): ChunkPull<object, E, R> => renderWith(chunks, { ...options, emit: (event) => event, end: [] })

const frame = (event: object): string => `data: ${JSON.stringify(event)}\n\n`

/**
 * The text of a chunk that is one text delta of choice 0 and nothing else (nearly every event of a
 * stream): `{index: 0, delta: {content}, finish_reason: null}`, no extra fields. Undefined otherwise.
 */
const plainContent = (chunk: CompletionChunk): string | undefined => {
  if (chunk.choices.length !== 1 || !isEmpty(chunk.extra)) return undefined
  const choice = chunk.choices[0]!
  if (choice.index !== 0 || choice.finish_reason !== null) return undefined
  let keys = 0
  for (const _ in choice) keys++
  if (keys !== 3) return undefined
  const delta = choice.delta
  const content = delta.content
  if (typeof content !== "string") return undefined
  for (const key in delta) if (key !== "content") return undefined
  return content
}

/** OpenAI's stream terminator. */
export const DONE_FRAME = "data: [DONE]\n\n"

/** The wire chunks as SSE frames, `data: [DONE]` last. */
export const renderFrames = <E, R>(
  chunks: ChunkPull<CompletionChunk, E, R>,
  options: {
    readonly identity: ResponseIdentity
    readonly includeUsage: boolean
    readonly trailer: () => Record<string, unknown>
  }
): ChunkPull<string, E, R> => {
  const { identity, includeUsage, trailer } = options
  // such a chunk's frame is the envelope's text around its content: the same bytes as serialising it,
  // without building and serialising the objects on every event
  const head = `data: {"id":${
    JSON.stringify(identity.id)
  },"object":"chat.completion.chunk","created":${identity.created},"model":${
    JSON.stringify(identity.model)
  },"choices":[{"index":0,"delta":{"content":`
  const plainText = (content: string) => `${head}${JSON.stringify(content)}},"finish_reason":null}]}\n\n`
  return renderWith(chunks, { identity, includeUsage, emit: frame, end: [DONE_FRAME], trailer, plainText })
}
