/**
 * Whatever Node the machine has (the CI machine's is 20, too old for the gateway), the commands the
 * README gives run the pinned Node 24 and print no engine warnings: `npx node` and `npx svc-gateway`
 * through npm itself, run with a PATH on which `node` is the machine's own.
 */
import { execFile } from "node:child_process"
import { delimiter } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import pkg from "../../package.json" with { type: "json" }

const repo = fileURLToPath(new URL("../..", import.meta.url))
/** The PATH without the project's node_modules/.bin: `node` and `npm` are the machine's. */
const machinePath = (process.env["PATH"] ?? "").split(delimiter).filter((dir) => !dir.includes("node_modules")).join(
  delimiter
)

const run = (command: string, args: ReadonlyArray<string>) =>
  new Promise<{ readonly code: number; readonly stdout: string; readonly stderr: string }>((resolve) => {
    execFile(
      command,
      args,
      { cwd: repo, env: { ...process.env, PATH: machinePath }, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr })
    )
  })

describe("commands on the machine's own Node", () => {
  it("npx node is the pinned Node, and runs TypeScript; no engine warnings", async () => {
    const pinned = `v${pkg.devDependencies.node}`
    const version = await run("npx", ["node", "--version"])
    expect(version.code, version.stderr).toBe(0)
    expect(version.stdout.trim()).toBe(pinned)
    expect(version.stderr).not.toMatch(/EBADENGINE|npm warn/)
    const typescript = await run("npx", ["node", "-e", "const n: number = 1; console.log(process.version, n)"])
    expect(typescript.stdout.trim()).toBe(`${pinned} 1`)
  }, 90_000)

  it("npx svc-gateway answers quietly", async () => {
    const help = await run("npx", ["svc-gateway", "--help"])
    expect(help.code, help.stderr).toBe(0)
    expect(help.stdout).toContain("Administer svc-gateway")
    expect(help.stderr).not.toMatch(/EBADENGINE|npm warn/)
  }, 90_000)

  it("the project's .npmrc keeps npm to errors", async () => {
    const loglevel = await run("npm", ["config", "get", "loglevel"])
    expect(loglevel.stdout.trim()).toBe("error")
  }, 60_000)
})
