/**
 * Anthropic's documented streaming examples ("Streaming Messages": a basic text answer, a tool use built
 * from `input_json_delta`s, extended thinking closed by a `signature_delta`), each as the gateway's chunks
 * that an Anthropic upstream's events become, and the frames the Messages dialect must write for them,
 * frame by frame. The frames are the documented events as the dialect serialises them (compact JSON, its
 * key order), with these differences from the documentation, all by the mapping the dialect follows:
 * - `message_start` usage always names the cache counts, and announces at most 1 output token;
 * - `message_delta` usage carries the whole final usage (input and cache counts too), not only output;
 * - a thinking block starts with an empty `signature`, and a `ping` follows the first block start (the
 *   thinking example of the documentation shows neither; the API sends both).
 * The tool-use example adds a second, parallel call after the documented one (`get_time`).
 */
import type { CompletionChunk, NativeDetail, Usage } from "../../../src/kernel/Canonical.ts"

export interface DocumentedStream {
  readonly name: string
  readonly id: string
  readonly model: string
  /** What the upstream reported by its first chunk (its `message_start`). */
  readonly startUsage: Usage
  readonly finalUsage: Usage
  readonly chunks: ReadonlyArray<CompletionChunk>
  readonly frames: ReadonlyArray<string>
}

export const usage = (prompt: number, completion: number, cached = 0, cacheWrite?: number): Usage => ({
  promptTokens: prompt,
  completionTokens: completion,
  totalTokens: prompt + completion,
  cachedTokens: cached,
  reasoningTokens: 0,
  ...(cacheWrite === undefined ? {} : { cacheWriteTokens: cacheWrite })
})

const MODEL = "claude-opus-4-6"

/** One choice-0 delta, as the adapter yields it. */
export const chunk = (
  delta: Record<string, unknown>,
  finish: string | null = null,
  native?: NativeDetail
): CompletionChunk => ({
  model: MODEL,
  choices: [{ index: 0, delta, finish_reason: finish }],
  usage: undefined,
  extra: {},
  ...(native === undefined ? {} : { native })
})

/** The last chunk of a stream: its usage and no choices. */
export const usageChunk = (u: Usage): CompletionChunk => ({ model: MODEL, choices: [], usage: u, extra: {} })

const anthropicStop = (stop_reason: string): NativeDetail => ({ format: "anthropic", stop_reason, stop_sequence: null })

const text = (s: string) => chunk({ content: s })
const toolStart = (index: number, id: string, name: string) =>
  chunk({ tool_calls: [{ index, id, type: "function", function: { name, arguments: "" } }] })
const toolArgs = (index: number, args: string) => chunk({ tool_calls: [{ index, function: { arguments: args } }] })

/** The frame of one event, as the documentation writes it: `event: <type>`, `data: <json>`, a blank line. */
const frame = (event: string, data: string) => `event: ${event}\ndata: ${data}\n\n`
const textDelta = (index: number, t: string) =>
  frame(
    "content_block_delta",
    `{"type":"content_block_delta","index":${index},"delta":{"type":"text_delta","text":${JSON.stringify(t)}}}`
  )
const jsonDelta = (index: number, partial: string) =>
  frame(
    "content_block_delta",
    `{"type":"content_block_delta","index":${index},"delta":{"type":"input_json_delta","partial_json":${
      JSON.stringify(partial)
    }}}`
  )
const blockStop = (index: number) => frame("content_block_stop", `{"type":"content_block_stop","index":${index}}`)
const PING = frame("ping", `{"type":"ping"}`)
const MESSAGE_STOP = frame("message_stop", `{"type":"message_stop"}`)

/** "Basic streaming request". */
export const textStream: DocumentedStream = {
  name: "text",
  id: "msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY",
  model: MODEL,
  startUsage: usage(25, 1),
  finalUsage: usage(25, 15),
  chunks: [
    chunk({ role: "assistant" }),
    text("Hello"),
    text("!"),
    chunk({}, "stop", anthropicStop("end_turn")),
    usageChunk(usage(25, 15))
  ],
  frames: [
    frame(
      "message_start",
      `{"type":"message_start","message":{"id":"msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY","type":"message","role":"assistant","model":"claude-opus-4-6","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"output_tokens":1,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}}`
    ),
    frame("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`),
    PING,
    textDelta(0, "Hello"),
    textDelta(0, "!"),
    blockStop(0),
    frame(
      "message_delta",
      `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":15,"input_tokens":25,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}`
    ),
    MESSAGE_STOP
  ]
}

const toolText = [
  "Okay",
  ",",
  " let",
  "'s",
  " check",
  " the",
  " weather",
  " for",
  " San",
  " Francisco",
  ",",
  " CA",
  ":"
]
const weatherArgs = ["{\"location\":", " \"San", " Francisc", "o,", " CA\"", ", ", "\"unit\": \"fah", "renheit\"}"]
const timeArgs = ["{\"timezone\":", " \"America/Los_Angeles\"}"]

/** "Streaming request with tool use", and a second call. */
export const toolStream: DocumentedStream = {
  name: "tool use",
  id: "msg_014p7gG3wDgGV9EUtLvnow3U",
  model: MODEL,
  startUsage: usage(472, 2),
  finalUsage: usage(472, 89),
  chunks: [
    chunk({ role: "assistant" }),
    ...toolText.map(text),
    // an Anthropic upstream's tool use: the block's start, then every input_json_delta, the first empty
    toolStart(0, "toolu_01T1x1fJ34qAmk2tNTrN7Up6", "get_weather"),
    toolArgs(0, ""),
    ...weatherArgs.map((piece) => toolArgs(0, piece)),
    toolStart(1, "toolu_01QxtwqB8VaFvCJ9ztGZrGd3", "get_time"),
    toolArgs(1, ""),
    ...timeArgs.map((piece) => toolArgs(1, piece)),
    chunk({}, "tool_calls", anthropicStop("tool_use")),
    usageChunk(usage(472, 89))
  ],
  frames: [
    frame(
      "message_start",
      `{"type":"message_start","message":{"id":"msg_014p7gG3wDgGV9EUtLvnow3U","type":"message","role":"assistant","model":"claude-opus-4-6","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":472,"output_tokens":1,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}}`
    ),
    frame("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`),
    PING,
    ...toolText.map((piece) => textDelta(0, piece)),
    blockStop(0),
    frame(
      "content_block_start",
      `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01T1x1fJ34qAmk2tNTrN7Up6","name":"get_weather","input":{}}}`
    ),
    jsonDelta(1, ""),
    ...weatherArgs.map((piece) => jsonDelta(1, piece)),
    blockStop(1),
    frame(
      "content_block_start",
      `{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_01QxtwqB8VaFvCJ9ztGZrGd3","name":"get_time","input":{}}}`
    ),
    jsonDelta(2, ""),
    ...timeArgs.map((piece) => jsonDelta(2, piece)),
    blockStop(2),
    frame(
      "message_delta",
      `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":89,"input_tokens":472,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}`
    ),
    MESSAGE_STOP
  ]
}

const gcdThinking = [
  "I need to find the GCD of 1071 and 462 using the Euclidean algorithm.\n\n1071 = 2 × 462 + 147",
  "\n462 = 3 × 147 + 21\n147 = 7 × 21 + 0\n\nSo GCD(1071, 462) = 21"
]
const gcdSignature = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds..."
const gcdAnswer = "The greatest common divisor (GCD) of 1071 and 462 is **21**."

/** "Streaming with extended thinking" (its usage is not documented: these counts are the test's). */
export const thinkingStream: DocumentedStream = {
  name: "extended thinking",
  id: "msg_01ThinkingGcd1071And462xy",
  model: MODEL,
  startUsage: usage(48, 1, 0, 0),
  finalUsage: usage(48, 90, 0, 0),
  chunks: [
    chunk({ role: "assistant" }),
    ...gcdThinking.map((piece) => chunk({ reasoning_content: piece })),
    chunk({ reasoning_signature: gcdSignature }),
    text(gcdAnswer),
    chunk({}, "stop", anthropicStop("end_turn")),
    usageChunk(usage(48, 90, 0, 0))
  ],
  frames: [
    frame(
      "message_start",
      `{"type":"message_start","message":{"id":"msg_01ThinkingGcd1071And462xy","type":"message","role":"assistant","model":"claude-opus-4-6","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":48,"output_tokens":1,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}}`
    ),
    frame(
      "content_block_start",
      `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`
    ),
    PING,
    ...gcdThinking.map((piece) =>
      frame(
        "content_block_delta",
        `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":${JSON.stringify(piece)}}}`
      )
    ),
    frame(
      "content_block_delta",
      `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds..."}}`
    ),
    blockStop(0),
    frame("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`),
    textDelta(1, gcdAnswer),
    blockStop(1),
    frame(
      "message_delta",
      `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":90,"input_tokens":48,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}`
    ),
    MESSAGE_STOP
  ]
}

export const documentedStreams: ReadonlyArray<DocumentedStream> = [textStream, toolStream, thinkingStream]
