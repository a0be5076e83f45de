/**
 * Every upstream format the gateway speaks, in one table: the routing file's `adapter:` names a key of
 * `adapters`, and `wellKnown` lists the services enabled by environment variables alone. Adding a
 * format is a folder under `providers/` and one entry here.
 */
import { type Duration, Effect, type Redacted } from "effect"
import * as Anthropic from "./anthropic/Anthropic.ts"
import * as Gemini from "./gemini/Gemini.ts"
import * as LocalProvider from "./local/LocalProvider.ts"
import * as OpenAiCompatible from "./openai/OpenAiCompatible.ts"
import type { Provider } from "./Provider.ts"
import * as Responses from "./responses/Responses.ts"
import type { UpstreamTransport } from "./UpstreamTransport.ts"

/** One provider instance, resolved: the API key is read from the environment already. */
export interface ProviderSpec {
  readonly name: string
  readonly adapter: AdapterName
  readonly baseUrl: string
  readonly apiKey: Redacted.Redacted<string> | undefined
  readonly headers: Readonly<Record<string, string>>
  readonly models: ReadonlyArray<string>
  /** `openai` only: false when the server serves chat completions and not `/responses`; absent: find out. */
  readonly responses?: boolean | undefined
}

/** What every adapter gets besides its provider's entry: the upstream timeouts. */
export interface AdapterSettings {
  readonly timeouts: {
    readonly firstByte: Duration.Duration | undefined
    readonly idle: Duration.Duration | undefined
    readonly total: Duration.Duration
  }
}

export interface Adapter {
  /** Where requests go when the entry names no `base_url`; undefined: a `base_url` is required. */
  readonly defaultBaseUrl: string | undefined
  /** Models listed for `GET /v1/models` when the entry lists none. */
  readonly defaultModels: ReadonlyArray<string>
  readonly make: (spec: ProviderSpec, settings: AdapterSettings) => Effect.Effect<Provider, never, UpstreamTransport>
}

const options = (spec: ProviderSpec, settings: AdapterSettings) => ({
  name: spec.name,
  baseUrl: spec.baseUrl,
  apiKey: spec.apiKey,
  headers: spec.headers,
  models: spec.models,
  timeouts: settings.timeouts
})

export const adapters = {
  "openai-compatible": {
    defaultBaseUrl: undefined,
    defaultModels: [],
    make: (spec, settings) => OpenAiCompatible.make(options(spec, settings))
  },
  // OpenAI itself: Responses clients natively to /responses, every other call to chat completions
  openai: {
    defaultBaseUrl: Responses.DEFAULT_OPENAI_BASE_URL,
    defaultModels: [],
    make: (spec, settings) => Responses.makeOpenAi({ ...options(spec, settings), responses: spec.responses })
  },
  // every call to /responses (Responses-only models)
  "openai-responses": {
    defaultBaseUrl: undefined,
    defaultModels: [],
    make: (spec, settings) => Responses.make(options(spec, settings))
  },
  anthropic: {
    defaultBaseUrl: Anthropic.DEFAULT_BASE_URL,
    defaultModels: [],
    make: (spec, settings) => Anthropic.make(options(spec, settings))
  },
  gemini: {
    defaultBaseUrl: Gemini.DEFAULT_BASE_URL,
    defaultModels: [],
    make: (spec, settings) => Gemini.make(options(spec, settings))
  },
  local: {
    defaultBaseUrl: "",
    defaultModels: [LocalProvider.LocalProvider.models[0]!],
    make: (spec) => Effect.succeed({ ...LocalProvider.LocalProvider, name: spec.name, models: spec.models })
  }
} as const satisfies Record<string, Adapter>

export type AdapterName = keyof typeof adapters

export const adapterNames = Object.keys(adapters) as ReadonlyArray<AdapterName>

/** Services known by name: `<ENV>_API_KEY` / `<ENV>_BASE_URL` enable them, for the author `name`. */
export interface WellKnown {
  readonly name: string
  readonly env: string
  readonly adapter: AdapterName
  /** Self-hosted services have none: their `_BASE_URL` is needed. */
  readonly baseUrl?: string
}

export const wellKnown: ReadonlyArray<WellKnown> = [
  { name: "openai", env: "OPENAI", adapter: "openai", baseUrl: Responses.DEFAULT_OPENAI_BASE_URL },
  { name: "anthropic", env: "ANTHROPIC", adapter: "anthropic", baseUrl: Anthropic.DEFAULT_BASE_URL },
  { name: "google", env: "GEMINI", adapter: "gemini", baseUrl: Gemini.DEFAULT_BASE_URL },
  { name: "groq", env: "GROQ", adapter: "openai-compatible", baseUrl: "https://api.groq.com/openai/v1" },
  { name: "together", env: "TOGETHER", adapter: "openai-compatible", baseUrl: "https://api.together.xyz/v1" },
  { name: "mistral", env: "MISTRAL", adapter: "openai-compatible", baseUrl: "https://api.mistral.ai/v1" },
  { name: "deepseek", env: "DEEPSEEK", adapter: "openai-compatible", baseUrl: "https://api.deepseek.com/v1" },
  { name: "openrouter", env: "OPENROUTER", adapter: "openai-compatible", baseUrl: "https://openrouter.ai/api/v1" },
  { name: "vllm", env: "VLLM", adapter: "openai-compatible" },
  { name: "llamacpp", env: "LLAMACPP", adapter: "openai-compatible" },
  { name: "ollama", env: "OLLAMA", adapter: "openai-compatible" }
]
