/**
 * How each coding client is pointed at the gateway for one run, as a pure description: the program,
 * its arguments and the environment it gets. Nothing here writes a file or changes the user's own
 * configuration: Claude Code takes its settings (the status line) as a `--settings` JSON argument and
 * its endpoint from the environment; Codex takes its provider as `-c` overrides of its config; OpenCode
 * takes a whole config as `OPENCODE_CONFIG_CONTENT`, merged over the user's.
 */

export const LAUNCH_CLIENTS = ["claude", "codex", "opencode"] as const
export type LaunchClient = (typeof LAUNCH_CLIENTS)[number]

/** How to get a client that is not on `PATH`. */
export const INSTALL_HINTS: Record<LaunchClient, string> = {
  claude: "npm install -g @anthropic-ai/claude-code",
  codex: "npm install -g @openai/codex",
  opencode: "npm install -g opencode-ai"
}

export interface LaunchSettings {
  /** The gateway's base URL, without `/v1`. */
  readonly url: string
  readonly key: string
  readonly model: string | undefined
  /** Tagged on every request as `developer:<this>`; undefined: no tag. */
  readonly developer: string | undefined
  /** The shell command Claude Code runs for its status line. */
  readonly statusline: string
  /** The user's own arguments for the client, after `--`. */
  readonly args: ReadonlyArray<string>
}

export interface ClientRun {
  readonly program: string
  readonly args: ReadonlyArray<string>
  /** Set for the client (and whatever it runs, such as the status line). */
  readonly env: Readonly<Record<string, string>>
  /** Removed from the environment the client inherits: they would point it elsewhere. */
  readonly unset: ReadonlyArray<string>
}

/** The environment every client gets: where the gateway is, and the key (read by the status line). */
const gatewayEnv = (settings: LaunchSettings) => ({
  SVC_GATEWAY_URL: settings.url,
  SVC_GATEWAY_KEY: settings.key
})

/** `x-svc-tags` naming the developer, when there is one. */
const tagHeaders = (settings: LaunchSettings): Record<string, string> =>
  settings.developer === undefined ? {} : { "x-svc-tags": `developer:${settings.developer}` }

/** A TOML basic string (JSON's escapes are TOML's for what a URL, model or email holds). */
const toml = (text: string) => JSON.stringify(text)

const claude = (settings: LaunchSettings): ClientRun => {
  const headers = Object.entries(tagHeaders(settings)).map(([name, value]) => `${name}: ${value}`)
  const model = settings.model
  return {
    program: "claude",
    args: [
      "--settings",
      JSON.stringify({ statusLine: { type: "command", command: settings.statusline, padding: 0 } }),
      ...settings.args
    ],
    env: {
      ...gatewayEnv(settings),
      ANTHROPIC_BASE_URL: settings.url,
      // a bearer token: Claude Code asks nothing before using it, as it does for an ANTHROPIC_API_KEY
      ANTHROPIC_AUTH_TOKEN: settings.key,
      ...(headers.length === 0 ? {} : { ANTHROPIC_CUSTOM_HEADERS: headers.join("\n") }),
      // the small model for titles and summaries too, so every request goes to a model the gateway routes
      ...(model === undefined ? {} : {
        ANTHROPIC_MODEL: model,
        ANTHROPIC_DEFAULT_OPUS_MODEL: model,
        ANTHROPIC_DEFAULT_SONNET_MODEL: model,
        ANTHROPIC_DEFAULT_HAIKU_MODEL: model,
        ANTHROPIC_SMALL_FAST_MODEL: model
      })
    },
    unset: ["ANTHROPIC_API_KEY"]
  }
}

const codex = (settings: LaunchSettings): ClientRun => {
  const headers = Object.entries(tagHeaders(settings)).map(([name, value]) => `${toml(name)} = ${toml(value)}`)
  const provider = [
    `name = "svc-gateway"`,
    `base_url = ${toml(`${settings.url}/v1`)}`,
    `env_key = "SVC_GATEWAY_KEY"`,
    `wire_api = "responses"`,
    ...(headers.length === 0 ? [] : [`http_headers = { ${headers.join(", ")} }`])
  ]
  return {
    program: "codex",
    args: [
      "-c",
      `model_providers.svc={ ${provider.join(", ")} }`,
      "-c",
      `model_provider="svc"`,
      ...(settings.model === undefined ? [] : ["-c", `model=${toml(settings.model)}`]),
      ...settings.args
    ],
    env: gatewayEnv(settings),
    unset: []
  }
}

/** OpenCode's config for the gateway: an OpenAI-compatible provider `svc-gateway`, its model the default. */
export const openCodeConfig = (settings: Pick<LaunchSettings, "url" | "model" | "developer">) => ({
  $schema: "https://opencode.ai/config.json",
  provider: {
    "svc-gateway": {
      npm: "@ai-sdk/openai-compatible",
      name: "svc-gateway",
      options: {
        baseURL: `${settings.url}/v1`,
        apiKey: "{env:SVC_GATEWAY_KEY}",
        headers: tagHeaders({ ...settings, key: "", statusline: "", args: [] })
      },
      models: settings.model === undefined ? {} : { [settings.model]: { name: settings.model } }
    }
  },
  // the small model (session titles) too, so every request goes to a model the gateway routes
  ...(settings.model === undefined
    ? {}
    : { model: `svc-gateway/${settings.model}`, small_model: `svc-gateway/${settings.model}` })
})

const opencode = (settings: LaunchSettings): ClientRun => ({
  program: "opencode",
  args: settings.args,
  env: { ...gatewayEnv(settings), OPENCODE_CONFIG_CONTENT: JSON.stringify(openCodeConfig(settings)) },
  unset: []
})

export const clientRun = (client: LaunchClient, settings: LaunchSettings): ClientRun =>
  client === "claude" ? claude(settings) : client === "codex" ? codex(settings) : opencode(settings)
