/**
 * The real Claude Code given the org's shared tools over MCP, set up as the README says:
 * `claude mcp add --transport http svc <gateway>/mcp --header "Authorization: Bearer <key>"`. Claude
 * Code lists the tools from `/mcp` and offers `svc_generate_uuid` to the model (as
 * `mcp__svc__svc_generate_uuid`); the model (a fake Anthropic upstream on 127.0.0.1) calls it, Claude
 * Code runs it through `/mcp`, and the UUID the gateway made comes back in the model's next request and
 * in the request log as a `svc_tool` row.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { anthropicStream } from "../utils/FakeAnthropic.ts"
import { fakeGatewayEnv, type FakeUpstream, startFakeUpstream, type UpstreamRequest } from "../utils/FakeUpstream.ts"
import { startGateway, type TestGateway } from "../utils/TestGateway.ts"
import { ensureClaudeCode, runClaude } from "./ClaudeCode.ts"

const TOOL = "mcp__svc__svc_generate_uuid"
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/

/** The texts of the conversation's tool results, as the upstream received them. */
const toolResultTexts = (request: UpstreamRequest): ReadonlyArray<string> =>
  (request.body.messages ?? []).flatMap((message) =>
    Array.isArray(message["content"])
      ? message["content"].filter((block: { type?: unknown }) => block.type === "tool_result").flatMap((
        block: { content?: unknown }
      ) =>
        typeof block.content === "string"
          ? [block.content]
          : Array.isArray(block.content)
          ? block.content.map((part: { text?: unknown }) => String(part.text ?? ""))
          : []
      )
      : []
  )

describe("Claude Code with the gateway's shared tools over MCP", () => {
  let gw: TestGateway
  let anthropic: FakeUpstream
  let key: string
  let orgId: string

  beforeAll(async () => {
    ensureClaudeCode()
    const openai = await startFakeUpstream()
    anthropic = await startFakeUpstream()
    gw = await startGateway(fakeGatewayEnv(openai, {
      providers: { anthropic: { adapter: "anthropic", base_url: anthropic.url, api_key_env: "FAKE_ANTHROPIC_KEY" } },
      env: { FAKE_ANTHROPIC_KEY: "sk-ant-fake" }
    }))
    await openai.close()
    const created = await gw.newKey()
    key = created.key
    orgId = created.orgId
    const activated = await gw.admin("PUT", `/orgs/${orgId}/svc-tools/svc_generate_uuid`, { activated: true })
    expect(activated.status).toBe(200)
  }, 360_000)
  afterAll(async () => {
    await gw?.close()
    await anthropic?.close()
  })

  it("lists the org's shared tools from /mcp and runs svc_generate_uuid through it", async () => {
    anthropic.handle((request) => {
      const results = toolResultTexts(request)
      if (results.length > 0) {
        const uuid = results.join(" ").match(UUID)?.[0] ?? "none"
        return anthropicStream({ content: [{ type: "text", text: `The gateway made ${uuid}.` }] })
      }
      const offered = ((request.body.tools ?? []) as ReadonlyArray<{ name?: string }>).some((tool) =>
        tool.name === TOOL
      )
      if (!offered) {
        const names = ((request.body.tools ?? []) as ReadonlyArray<{ name?: string }>).map((tool) => tool.name)
        return anthropicStream({ content: [{ type: "text", text: `No shared tool was offered: ${names.join(",")}` }] })
      }
      return anthropicStream({ content: [{ type: "tool_use", id: "toolu_uuid_1", name: TOOL, input: {} }] })
    })
    const run = await runClaude({
      baseUrl: gw.url,
      apiKey: key,
      model: "claude-fake-1",
      prompt: "Make me a UUID with the shared tool.",
      setup: [[
        "mcp",
        "add",
        "--transport",
        "http",
        "svc",
        `${gw.url}/mcp`,
        "--header",
        `Authorization: Bearer ${key}`
      ]],
      extraArgs: ["--allowedTools", TOOL],
      // Claude Code defers MCP tools behind its ToolSearch tool by default (the model loads one by
      // searching); offered directly, the scripted model can call it on its first turn
      env: { ENABLE_TOOL_SEARCH: "false" }
    })
    expect(run.exitCode, run.stderr).toBe(0)
    expect(run.outbound).toEqual([])
    expect(run.stdout, run.stderr).toMatch(new RegExp(`The gateway made ${UUID.source}\\.`))

    // the gateway ran it, for this key's org, and logged it
    await expect.poll(async () => {
      const page = await gw.admin("GET", `/orgs/${orgId}/requests?limit=50`)
      return page.json.data.filter((row: { kind: string }) => row.kind === "svc_tool").map((
        row: { svc_tools: ReadonlyArray<string> }
      ) => row.svc_tools)
    }, { timeout: 5_000 }).toContainEqual(["svc_generate_uuid"])
  }, 180_000)
})
