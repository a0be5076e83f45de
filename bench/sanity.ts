/**
 * Bench sanity checks: before a target is loaded, one non-stream and one stream request must come back
 * as a well-formed chat completion carrying the fake upstream's text, so a fast error page is never
 * mistaken for a fast gateway. Failures quote the status and body the target answered.
 */
import { EXPECTED_CONTENT, MESSAGES_STREAM_END, RESPONSES_LAST_EVENT } from "./fake-upstream.ts"
import { type HttpAnswer, httpCall } from "./proc.ts"
import type { Mode } from "./report.ts"

export interface Target {
  readonly name: string
  /** Full URL of the endpoint: chat completions, or Anthropic Messages or OpenAI Responses when `format` says so. */
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly model: string
  readonly format?: "chat" | "messages" | "responses"
}

export const STREAM_END = "data: [DONE]\n\n"

/**
 * How a target's streams end: `[DONE]`, or the Messages API's `message_stop` event (a fixed suffix), or
 * the Responses API's `response.completed` event (its data holds the response's id: the last event's name).
 */
export const streamEnd = (
  target: Target
): { readonly expectBodySuffix: string } | { readonly expectLastEvent: string } =>
  target.format === "responses"
    ? { expectLastEvent: RESPONSES_LAST_EVENT }
    : { expectBodySuffix: target.format === "messages" ? MESSAGES_STREAM_END : STREAM_END }

export const requestBody = (model: string, mode: Mode, format: Target["format"] = "chat"): string =>
  JSON.stringify(
    format === "responses"
      ? {
        model,
        instructions: "You are a benchmark.",
        input: "Say hello.",
        ...(mode === "stream" ? { stream: true } : {})
      }
      : format === "messages"
      ? {
        model,
        max_tokens: 64,
        system: "You are a benchmark.",
        messages: [{ role: "user", content: "Say hello." }],
        ...(mode === "stream" ? { stream: true } : {})
      }
      : {
        model,
        messages: [
          { role: "system", content: "You are a benchmark." },
          { role: "user", content: "Say hello." }
        ],
        ...(mode === "stream" ? { stream: true } : {})
      }
  )

const snippet = (answer: HttpAnswer): string =>
  `HTTP ${answer.status} content-type=${String(answer.headers["content-type"])}: ${
    answer.body.length > 400 ? `${answer.body.slice(0, 400)}...` : answer.body
  }`

const asRecord = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined

const firstChoice = (value: unknown): Record<string, unknown> | undefined => {
  const choices = asRecord(value)?.["choices"]
  return Array.isArray(choices) ? asRecord(choices[0]) : undefined
}

const checkNonStream = (answer: HttpAnswer, format: Target["format"]): string | undefined => {
  if (answer.status !== 200) return `expected 200, got ${snippet(answer)}`
  let parsed: unknown
  try {
    parsed = JSON.parse(answer.body)
  } catch {
    return `body is not JSON: ${snippet(answer)}`
  }
  if (format === "responses") {
    const output = asRecord(parsed)?.["output"]
    const message = Array.isArray(output)
      ? output.map(asRecord).find((item) => item?.["type"] === "message")
      : undefined
    const parts = message?.["content"]
    const text = Array.isArray(parts) ? asRecord(parts[0])?.["text"] : undefined
    if (asRecord(parsed)?.["object"] !== "response" || text !== EXPECTED_CONTENT) {
      return `not the expected response: ${snippet(answer)}`
    }
    return undefined
  }
  if (format === "messages") {
    const blocks = asRecord(parsed)?.["content"]
    const text = Array.isArray(blocks) ? asRecord(blocks[0])?.["text"] : undefined
    if (asRecord(parsed)?.["type"] !== "message" || text !== EXPECTED_CONTENT) {
      return `not the expected message: ${snippet(answer)}`
    }
    return undefined
  }
  if (asRecord(parsed)?.["object"] !== "chat.completion") return `object is not "chat.completion": ${snippet(answer)}`
  const content = asRecord(firstChoice(parsed)?.["message"])?.["content"]
  if (content !== EXPECTED_CONTENT) {
    return `choices[0].message.content is ${JSON.stringify(content)}: ${snippet(answer)}`
  }
  return undefined
}

const checkStream = (answer: HttpAnswer, format: Target["format"]): string | undefined => {
  if (answer.status !== 200) return `expected 200, got ${snippet(answer)}`
  if (!String(answer.headers["content-type"]).startsWith("text/event-stream")) {
    return `not an event stream: ${snippet(answer)}`
  }
  if (format === "responses") {
    const events = answer.body.split("\n\n").filter((event) => event !== "")
    if (!(events[events.length - 1] ?? "").startsWith(`event: ${RESPONSES_LAST_EVENT}\n`)) {
      return `stream does not end with ${RESPONSES_LAST_EVENT}: ${snippet(answer)}`
    }
    let text = ""
    for (const event of events) {
      const data = asRecord(JSON.parse(event.slice(event.indexOf("data:") + 5)))
      if (data?.["type"] === "response.output_text.delta" && typeof data["delta"] === "string") text += data["delta"]
    }
    return text === EXPECTED_CONTENT ? undefined : `streamed text is ${JSON.stringify(text)}: ${snippet(answer)}`
  }
  if (format === "messages") {
    if (!answer.body.endsWith(MESSAGES_STREAM_END)) return `stream does not end with message_stop: ${snippet(answer)}`
    let text = ""
    for (const line of answer.body.split("\n")) {
      if (!line.startsWith("data:")) continue
      const delta = asRecord(asRecord(JSON.parse(line.slice(5)))?.["delta"])
      if (delta?.["type"] === "text_delta" && typeof delta["text"] === "string") text += delta["text"]
    }
    return text === EXPECTED_CONTENT ? undefined : `streamed text is ${JSON.stringify(text)}: ${snippet(answer)}`
  }
  if (!answer.body.endsWith(STREAM_END)) return `stream does not end with "data: [DONE]": ${snippet(answer)}`
  let text = ""
  for (const event of answer.body.split("\n\n")) {
    const data = event.split("\n").find((line) => line.startsWith("data:"))?.slice(5).trim()
    if (data === undefined || data === "[DONE]") continue
    try {
      const delta = asRecord(firstChoice(JSON.parse(data))?.["delta"])?.["content"]
      if (typeof delta === "string") text += delta
    } catch {
      return `event is not JSON (${JSON.stringify(data.slice(0, 200))}): ${snippet(answer)}`
    }
  }
  if (text !== EXPECTED_CONTENT) {
    return `streamed content is ${JSON.stringify(text)}, expected ${JSON.stringify(EXPECTED_CONTENT)}`
  }
  return undefined
}

/** Throws with what the target answered if either mode does not look like the fake upstream's reply. */
export const sanityCheck = async (target: Target): Promise<void> => {
  for (const mode of ["non-stream", "stream"] as const) {
    const problem = await httpCall(target.url, {
      method: "POST",
      headers: { ...target.headers },
      body: requestBody(target.model, mode, target.format)
    }).then(
      (answer) => (mode === "stream" ? checkStream(answer, target.format) : checkNonStream(answer, target.format)),
      (error: unknown) => (error instanceof Error ? error.message : String(error))
    )
    if (problem !== undefined) throw new Error(`${target.name} ${mode} sanity check, POST ${target.url}: ${problem}`)
  }
}
