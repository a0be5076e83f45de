/** Quick start: this gateway's base URL, a first request with curl, an SDK, and the coding clients. */
import { href } from "../Route.ts"

const Code = (props: { readonly label: string; readonly text: string }) => (
  <figure class="code">
    <figcaption>{props.label}</figcaption>
    <pre tabIndex={0}><code>{props.text}</code></pre>
  </figure>
)

export const QuickStartPage = () => {
  const base = `${location.origin}/v1`
  return (
    <section class="prose">
      <h1 tabIndex={-1}>Quick start</h1>
      <p>
        svc-gateway speaks OpenAI's chat-completions API. Any OpenAI client works with two changes: the base URL below,
        and an API key created under <a href={href("keys")}>API keys</a> (it starts with{" "}
        <code>sk-svc-</code>). Models are named <code>author_id/model_id</code>; <code>local/echo</code>{" "}
        answers offline, without a provider.
      </p>
      <h2>Base URL</h2>
      <p>
        <code class="base-url">{base}</code>
      </p>

      <h2>A first request</h2>
      <Code
        label="curl"
        text={`export SVC_GATEWAY_API_KEY=sk-svc-...   # from the API keys page

curl ${base}/chat/completions \\
  -H "Authorization: Bearer $SVC_GATEWAY_API_KEY" \\
  -H "Content-Type: application/json" \\
  -H "x-svc-tags: quickstart" \\
  -d '{"model": "local/echo", "messages": [{"role": "user", "content": "Hello"}]}'`}
      />
      <p>
        <code>x-svc-tags</code> labels the request: filter by it under <a href={href("requests")}>Requests</a>{" "}
        and group by it under <a href={href("analytics")}>Analytics</a>. Add <code>"stream": true</code>{" "}
        for server-sent events.
      </p>
      <Code
        label="Python (openai)"
        text={`import os
from openai import OpenAI

client = OpenAI(base_url="${base}", api_key=os.environ["SVC_GATEWAY_API_KEY"])
reply = client.chat.completions.create(
    model="local/echo",
    messages=[{"role": "user", "content": "Hello"}],
)`}
      />
      <Code
        label="TypeScript (openai)"
        text={`import OpenAI from "openai"

const client = new OpenAI({ baseURL: "${base}", apiKey: process.env.SVC_GATEWAY_API_KEY })
const reply = await client.chat.completions.create({
  model: "local/echo",
  messages: [{ role: "user", content: "Hello" }]
})`}
      />

      <h2>Coding clients</h2>
      <p>Point the client at the base URL with a key of its own, so its traffic shows under that key.</p>
      <Code
        label="Claude Code (Anthropic's Messages API)"
        text={`export ANTHROPIC_BASE_URL=${location.origin}
export ANTHROPIC_API_KEY="$SVC_GATEWAY_API_KEY"
claude --model anthropic/claude-sonnet-4-5   # or a bare claude-... name, or any routed model`}
      />
      <Code
        label="OpenCode: opencode.json"
        text={`{
  "$schema": "https://opencode.ai/config.json",
  "provider": {
    "svc-gateway": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "svc-gateway",
      "options": { "baseURL": "${base}", "apiKey": "{env:SVC_GATEWAY_API_KEY}" },
      "models": { "openai/gpt-4o": { "name": "gpt-4o via svc-gateway" } }
    }
  }
}`}
      />
      <Code
        label="Aider"
        text={`aider --openai-api-base ${base} --openai-api-key "$SVC_GATEWAY_API_KEY" \\
  --model openai/openai/gpt-4o   # "openai/" + the gateway's author_id/model_id`}
      />
      <p class="hint">
        Current Codex releases speak OpenAI's Responses API, which this gateway does not serve yet.
      </p>
    </section>
  )
}
