/**
 * Dependencies point one way (docs/architecture.md): http -> dialects -> core -> the services below ->
 * kernel. A folder that imports one above it would bring the cycle back that made a new wire format a
 * copy of the old one; this test names each such import.
 */
import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"

const SRC = resolve(import.meta.dirname, "../../src")

/** The folders each folder must not import from. */
const FORBIDDEN: Readonly<Record<string, ReadonlyArray<string>>> = {
  kernel: ["*"],
  core: ["http", "dialects", "cli", "console"],
  dialects: ["http", "cli", "console"],
  providers: ["http", "dialects", "core", "cli", "console"],
  tools: ["http", "dialects", "core", "cli", "console"],
  logs: ["http", "dialects", "core", "cli", "console"],
  admin: ["http", "dialects", "core", "cli", "console"],
  auth: ["http", "dialects", "core", "cli", "console"],
  keys: ["http", "dialects", "core", "cli", "console"],
  store: ["http", "dialects", "core", "cli", "console"],
  observability: ["http", "dialects", "core", "cli", "console"],
  limits: ["http", "dialects", "core", "cli", "console"]
}

const filesUnder = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? filesUnder(join(dir, entry.name))
      : /\.tsx?$/.test(entry.name) ? [join(dir, entry.name)] : []
  )

/** The src folder a relative import lands in (`""` for a file directly under src/), or undefined outside src. */
const folderOf = (file: string, specifier: string): string | undefined => {
  const target = relative(SRC, resolve(dirname(file), specifier))
  if (target.startsWith("..")) return undefined
  const parts = target.split("/")
  return parts.length > 1 ? parts[0] : ""
}

const violations = (): ReadonlyArray<string> => {
  const found: Array<string> = []
  for (const [folder, forbidden] of Object.entries(FORBIDDEN)) {
    for (const file of filesUnder(join(SRC, folder))) {
      const text = readFileSync(file, "utf8")
      for (const match of text.matchAll(/^(?:import|export)[^"']*["'](\.{1,2}\/[^"']+)["']/gm)) {
        const landed = folderOf(file, match[1]!)
        if (landed === undefined || landed === folder) continue
        if (forbidden.includes("*") || forbidden.includes(landed)) {
          found.push(`src/${relative(SRC, file)} imports ${match[1]} (${landed || "src/"})`)
        }
      }
    }
  }
  return found
}

describe("layering", () => {
  it("no folder imports one above it", () => {
    expect(violations()).toEqual([])
  })

  it("would name an upward import", () => {
    expect(folderOf(join(SRC, "core/ChatCompletions.ts"), "../http/Sse.ts")).toBe("http")
    expect(folderOf(join(SRC, "kernel/ChatCall.ts"), "../Config.ts")).toBe("")
    expect(folderOf(join(SRC, "kernel/ChatCall.ts"), "../../test/x.ts")).toBeUndefined()
  })
})
