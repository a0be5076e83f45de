/**
 * Dependencies point one way (docs/architecture.md): http -> dialects -> core -> the services below ->
 * kernel. A folder that imports one above it would bring the cycle back that made a new wire format a
 * copy of the old one; this test names each such import, and every circle of imports, between files
 * and between folders (a file directly under src/ counts as a folder of its own), type-only imports
 * included: a circle means neither side can be read, tested or moved without the other.
 */
import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"

const SRC = resolve(import.meta.dirname, "../../src")

/** The folders each folder must not import from. */
const FORBIDDEN: Readonly<Record<string, ReadonlyArray<string>>> = {
  kernel: ["*"],
  // what an inbound dialect and an upstream adapter of one wire format share: the kernel only
  formats: [
    "http",
    "dialects",
    "core",
    "providers",
    "tools",
    "logs",
    "admin",
    "auth",
    "keys",
    "orgs",
    "store",
    "observability",
    "limits",
    "compression",
    "cli",
    "console"
  ],
  core: ["http", "dialects", "cli", "console"],
  dialects: ["http", "cli", "console"],
  providers: ["http", "dialects", "core", "cli", "console"],
  tools: ["http", "dialects", "core", "cli", "console"],
  logs: ["http", "dialects", "core", "cli", "console"],
  admin: ["http", "dialects", "core", "cli", "console"],
  auth: ["http", "dialects", "core", "cli", "console"],
  keys: ["http", "dialects", "core", "cli", "console"],
  orgs: ["http", "dialects", "core", "cli", "console"],
  store: ["http", "dialects", "core", "cli", "console"],
  observability: ["http", "dialects", "core", "cli", "console"],
  limits: ["http", "dialects", "core", "cli", "console"],
  prices: ["http", "dialects", "core", "cli", "console"]
}

const filesUnder = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? filesUnder(join(dir, entry.name))
      : /\.tsx?$/.test(entry.name)
      ? [join(dir, entry.name)]
      : []
  )

/** The src folder a relative import lands in (`""` for a file directly under src/), or undefined outside src. */
const folderOf = (file: string, specifier: string): string | undefined => {
  const target = relative(SRC, resolve(dirname(file), specifier))
  if (target.startsWith("..")) return undefined
  const parts = target.split("/")
  return parts.length > 1 ? parts[0] : ""
}

/** The relative specifiers a file imports or re-exports from (`import type` included). */
const importsOf = (file: string): ReadonlyArray<string> =>
  [...readFileSync(file, "utf8").matchAll(/^(?:import|export)[^"']*["'](\.{1,2}\/[^"']+)["']/gm)].map((match) =>
    match[1]!
  )

/** Every relative import of every file under src/, as src-relative paths (the importer, the imported). */
const importsUnderSrc = (): ReadonlyArray<readonly [string, string]> =>
  filesUnder(SRC).flatMap((file) =>
    importsOf(file).flatMap((specifier) => {
      const target = relative(SRC, resolve(dirname(file), specifier))
      return target.startsWith("..") ? [] : [[relative(SRC, file), target] as const]
    })
  )

/** The folder a src-relative path is in; a file directly under src/ is its own. */
const unitOf = (path: string): string => path.includes("/") ? `${path.split("/")[0]}/` : path

/** The circles of a graph: its strongly connected components of more than one node (Tarjan's). */
const circles = (edges: ReadonlyArray<readonly [string, string]>): ReadonlyArray<ReadonlyArray<string>> => {
  const next = new Map<string, Set<string>>()
  for (const [from, to] of edges) {
    if (from === to) continue
    if (!next.has(from)) next.set(from, new Set())
    if (!next.has(to)) next.set(to, new Set())
    next.get(from)!.add(to)
  }
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: Array<string> = []
  const onStack = new Set<string>()
  const found: Array<ReadonlyArray<string>> = []
  const visit = (node: string) => {
    index.set(node, index.size)
    low.set(node, index.get(node)!)
    stack.push(node)
    onStack.add(node)
    for (const to of next.get(node)!) {
      if (!index.has(to)) {
        visit(to)
        low.set(node, Math.min(low.get(node)!, low.get(to)!))
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!))
    }
    if (low.get(node) !== index.get(node)) return
    const component: Array<string> = []
    for (let member = stack.pop()!;; member = stack.pop()!) {
      onStack.delete(member)
      component.push(member)
      if (member === node) break
    }
    if (component.length > 1) found.push(component.sort())
  }
  for (const node of [...next.keys()].sort()) if (!index.has(node)) visit(node)
  return found
}

const violations = (): ReadonlyArray<string> => {
  const found: Array<string> = []
  for (const [folder, forbidden] of Object.entries(FORBIDDEN)) {
    for (const file of filesUnder(join(SRC, folder))) {
      for (const specifier of importsOf(file)) {
        const landed = folderOf(file, specifier)
        if (landed === undefined || landed === folder) continue
        if (forbidden.includes("*") || forbidden.includes(landed)) {
          found.push(`src/${relative(SRC, file)} imports ${specifier} (${landed || "src/"})`)
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

  it("no circle of imports between files", () => {
    expect(circles(importsUnderSrc())).toEqual([])
  })

  it("no circle of imports between folders", () => {
    expect(circles(importsUnderSrc().map(([from, to]) => [unitOf(from), unitOf(to)] as const))).toEqual([])
  })

  it("would name a circle, and not a chain", () => {
    expect(circles([["a", "b"], ["b", "c"], ["c", "a"], ["c", "d"], ["d", "d"]])).toEqual([["a", "b", "c"]])
    expect(circles([["a", "b"], ["b", "c"]])).toEqual([])
    expect(unitOf("core/ToolLoop.ts")).toBe("core/")
    expect(unitOf("Config.ts")).toBe("Config.ts")
  })

  it("would name an upward import", () => {
    expect(folderOf(join(SRC, "core/GatewayCore.ts"), "../http/Sse.ts")).toBe("http")
    expect(folderOf(join(SRC, "kernel/ChatCall.ts"), "../Config.ts")).toBe("")
    expect(folderOf(join(SRC, "kernel/ChatCall.ts"), "../../test/x.ts")).toBeUndefined()
  })
})
