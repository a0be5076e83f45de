/**
 * Shared fixtures for the OpenAI-compatible adapter tests: a call, options, SSE builders and a way to
 * compare error reasons as plain data.
 */
import { assert } from "@effect/vitest"
import { Duration, Redacted } from "effect"
import type { CompletionChunk } from "../../src/kernel/Canonical.ts"
import type { OpenAiCompatibleOptions } from "../../src/providers/openai/OpenAiCompatible.ts"
import type { ProviderCall } from "../../src/providers/Provider.ts"
import type { ProviderError } from "../../src/providers/ProviderError.ts"

export const call: ProviderCall = {
  modelId: "gpt-4o-mini",
  messages: [{ role: "user", content: "hi" }],
  tools: undefined,
  toolChoice: undefined,
  maxTokens: 32,
  passthrough: { temperature: 0 },
  requestId: "req-42"
}

export const optionsOf = (overrides: Partial<OpenAiCompatibleOptions> = {}): OpenAiCompatibleOptions => ({
  name: "openai",
  baseUrl: "https://api.example.test/v1/",
  apiKey: Redacted.make("sk-test"),
  headers: { "x-title": "svc-gateway" },
  models: ["gpt-4o-mini"],
  timeouts: { firstByte: Duration.seconds(10), idle: Duration.seconds(10), total: Duration.seconds(30) },
  ...overrides
})

export const encoder = new TextEncoder()
export const sse = (...payloads: ReadonlyArray<unknown>) =>
  payloads.map((p) => `data: ${typeof p === "string" ? p : JSON.stringify(p)}\n\n`).join("")
export const delta = (content: string) => ({
  id: "c",
  model: "gpt-4o-mini-2024",
  choices: [{ index: 0, delta: { content } }]
})
export const usageChunk = {
  id: "c",
  model: "gpt-4o-mini-2024",
  choices: [],
  usage: { prompt_tokens: 3, completion_tokens: 2 }
}
export const contentOf = (chunks: ReadonlyArray<CompletionChunk>) =>
  chunks.flatMap((c) => c.choices.map((choice) => choice.delta.content ?? "")).join("")

export const deferred = () => {
  let resolve: () => void = () => {}
  const promise = new Promise<void>((r) => (resolve = r))
  return { promise, resolve: () => resolve() }
}

export const reasonOf = (error: ProviderError) => {
  assert.strictEqual(error._tag, "ProviderError")
  return error.reason
}

/** A reason's own fields as a plain object (error instances do not spread `message`); undefined ones left out. */
export const plain = (reason: ProviderError["reason"]): Record<string, unknown> => {
  const fields = reason._tag === "UpstreamStatus"
    ? { status: reason.status, message: reason.message, type: reason.type, code: reason.code, param: reason.param }
    : reason._tag === "UpstreamTimeout"
    ? { phase: reason.phase }
    : { message: reason.message }
  return Object.fromEntries(Object.entries({ _tag: reason._tag, ...fields }).filter(([, v]) => v !== undefined))
}
