/**
 * What one Responses WebSocket remembers so a `response.create` can continue the previous response
 * (`previous_response_id`) with only its new input items, as Codex sends them: each answered
 * response's whole input and its output, by id. It lives as long as its connection and keeps the last
 * few responses only (Codex continues the latest); over plain HTTP the gateway keeps nothing and a
 * `previous_response_id` is refused. An unknown id is `previous_response_not_found`, on which Codex
 * opens a new connection and sends the whole conversation.
 */
import { isRecord } from "../kernel/Json.ts"

/** Responses remembered per connection: the latest is the one continued; a few more cover a retry. */
const KEPT = 4

type Items = ReadonlyArray<unknown>

/** The request's `input` as items: a string is one user message, nothing is none. */
export const inputItems = (input: unknown): Items =>
  typeof input === "string"
    ? [{ type: "message", role: "user", content: [{ type: "input_text", text: input }] }]
    : Array.isArray(input)
    ? input
    : []

export class ResponseChain {
  private readonly responses = new Map<string, { readonly input: Items; readonly output: Items }>()

  /**
   * The body to run for a `response.create` (without its `type`): its `previous_response_id`, if any,
   * replaced by that response's input and output before the new items; undefined when the id is unknown.
   */
  continued(body: Readonly<Record<string, unknown>>): Record<string, unknown> | undefined {
    const { previous_response_id: previous, ...rest } = body
    if (previous === undefined || previous === null) return { ...rest }
    const earlier = typeof previous === "string" ? this.responses.get(previous) : undefined
    if (earlier === undefined) return undefined
    return { ...rest, input: [...earlier.input, ...earlier.output, ...inputItems(rest["input"])] }
  }

  /** Remembers an answered response: the whole input it ran on, and its output items. */
  remember(id: string, input: unknown, output: unknown): void {
    this.responses.delete(id)
    this.responses.set(id, { input: inputItems(input), output: Array.isArray(output) ? output : [] })
    if (this.responses.size > KEPT) this.responses.delete(this.responses.keys().next().value!)
  }

  /** Remembers the response a `response.completed` event carries, if it is one. */
  rememberCompleted(event: unknown, input: unknown): void {
    if (!isRecord(event) || event["type"] !== "response.completed") return
    const response = event["response"]
    if (isRecord(response) && typeof response["id"] === "string") {
      this.remember(response["id"], input, response["output"])
    }
  }
}
