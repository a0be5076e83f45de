/**
 * The bundle `npm start` runs (dist/main.js, from src/build/bundleServer.ts) is the same gateway as the
 * sources: built fresh here, run as a process, it answers whole and streamed completions through an
 * upstream, serves the console, keeps its request log, and exits with 0 on SIGTERM.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bundleServer } from "../../src/build/bundleServer.ts"
import { chunk, completion, type FakeUpstream, reply, startFakeUpstream } from "../utils/FakeUpstream.ts"
import { type GatewayProcess, startGatewayProcess, within } from "../utils/GatewayProcess.ts"
import { streamedText, streamOf } from "../utils/SharedToolsHarness.ts"
import { ADMIN_TOKEN, postChat } from "../utils/TestGateway.ts"

const REPO = join(import.meta.dirname, "../..")

describe("the server bundle", () => {
  // inside the repo, so the bundle finds the packages it leaves outside (PGlite) in node_modules
  const dir = join(REPO, "dist", `test-bundle-${process.pid}`)
  const bundle = join(dir, "main.js")
  let upstream: FakeUpstream
  let gateway: GatewayProcess

  beforeAll(async () => {
    await bundleServer(bundle)
    upstream = await startFakeUpstream((request) =>
      request.body.stream === true
        ? reply.sse([
          chunk({ role: "assistant", content: "" }),
          chunk({ content: "bun" }),
          chunk({ content: "dled" }, "stop")
        ])
        : reply.json(completion({ content: "from the bundle" }))
    )
    const consoleDir = mkdtempSync(join(tmpdir(), "svc-gateway-bundle-console-"))
    writeFileSync(join(consoleDir, "index.html"), "<!doctype html><title>console</title>")
    gateway = await startGatewayProcess(upstream, {
      GATEWAY_CONSOLE_DIR: consoleDir,
      GATEWAY_LOG_FLUSH_INTERVAL: "50 millis"
    }, bundle)
  })
  afterAll(async () => {
    if (gateway !== undefined && gateway.proc.exitCode === null) gateway.proc.kill("SIGKILL")
    await upstream?.close()
    if (gateway !== undefined) rmSync(gateway.dataDir, { recursive: true, force: true })
    rmSync(dir, { recursive: true, force: true })
  })

  it("answers whole and streamed completions through the upstream", async () => {
    const whole = await postChat(
      gateway.url,
      { model: "fake/some-model", messages: [{ role: "user", content: "hi" }] },
      { key: gateway.key }
    )
    expect(whole.status).toBe(200)
    const body = (await whole.json()) as { choices: Array<{ message: { content: string } }> }
    expect(body.choices[0]?.message.content).toBe("from the bundle")

    const streamed = await postChat(gateway.url, {
      model: "fake/some-model",
      stream: true,
      messages: [{ role: "user", content: "hi" }]
    }, { key: gateway.key })
    expect(streamed.headers.get("content-type")).toContain("text/event-stream")
    expect(streamedText(await streamOf(streamed))).toBe("bundled")
  })

  it("serves the console, and its request log has the requests", async () => {
    const page = await fetch(`${gateway.url}/console`)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain("<title>console</title>")
    await expect.poll(async () => {
      const list = await fetch(`${gateway.url}/admin/v1/orgs/${gateway.orgId}/requests`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` }
      })
      return ((await list.json()) as { data: Array<unknown> }).data.length
    }, { timeout: 10_000 }).toBe(2)
  })

  it("requires Node's built-ins rather than importing them (an import reads every export, loading unused modules)", () => {
    const lines = readFileSync(bundle, "utf8").split("\n")
    expect(lines.filter((line) => /^import .* from "node:/.test(line) && !line.endsWith(`from "node:module";`)))
      .toEqual([])
    expect(lines.some((line) => line.startsWith(`const { Server } = __requireBuiltin("node:http");`))).toBe(true)
  })

  it("drains and exits cleanly (0) on SIGTERM", async () => {
    gateway.proc.kill("SIGTERM")
    const exit = await within(15_000, "exit after SIGTERM", gateway.exited)
    expect(exit.signal, gateway.output()).toBeNull()
    expect(exit.code, gateway.output()).toBe(0)
  })
})
