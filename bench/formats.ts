/**
 * The inbound formats `bench/cpu.ts` (`CPU_FORMAT`) and `bench/steps.ts` (`STEPS_FORMAT`) measure, as
 * `npm run bench`'s targets of the same names measure them: chat completions (the default), Anthropic
 * Messages to the Anthropic upstream (`messages`) or to the chat-completions one (`messages-x`), the
 * Responses API to OpenAI's adapter (`responses`) or to the chat-completions upstream (`responses-x`).
 */
import type { Target } from "./sanity.ts"

export const FORMATS = {
  chat: { path: "/v1/chat/completions", model: "bench/fake-model", format: "chat" },
  messages: { path: "/v1/messages", model: "benchanthropic/fake-model", format: "messages" },
  "messages-x": { path: "/v1/messages", model: "bench/fake-model", format: "messages" },
  responses: { path: "/v1/responses", model: "benchopenai/fake-model", format: "responses" },
  "responses-x": { path: "/v1/responses", model: "bench/fake-model", format: "responses" }
} as const

export type BenchFormat = (typeof FORMATS)[keyof typeof FORMATS]

/** The format named by the environment variable `variable`, chat completions when unset. */
export const formatFrom = (variable: string): BenchFormat => {
  const name = process.env[variable] ?? "chat"
  if (!Object.hasOwn(FORMATS, name)) {
    throw new Error(`${variable}=${name} must be one of ${Object.keys(FORMATS).join(", ")}`)
  }
  return FORMATS[name as keyof typeof FORMATS]
}

/** The gateway at `baseUrl` as a target in `format`, with the key sent as that format's clients send it. */
export const gatewayTarget = (name: string, baseUrl: string, apiKey: string, format: BenchFormat): Target => ({
  name,
  url: `${baseUrl}${format.path}`,
  headers: format.format === "messages" ? { "x-api-key": apiKey } : { authorization: `Bearer ${apiKey}` },
  model: format.model,
  format: format.format
})

/** Whether the gateway needs the Anthropic and OpenAI upstreams besides the chat-completions one. */
export const needsEveryProvider = (format: BenchFormat): boolean => format.model !== FORMATS.chat.model
