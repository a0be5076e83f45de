/**
 * The shared tools an organization can have: the installed plugins (`ToolRegistry`), the tools of MCP
 * servers the operator configured (every org's, like plugins), and the tools of MCP servers the org
 * registered itself (its own only). MCP tools come and go while the gateway runs (a server's list
 * changes, a server is added or removed), so sources push their tools here and readers ask per org.
 * Reads are on the request path: an org's catalogue is built once per change and kept.
 */
import { Context, Effect, Layer } from "effect"
import type { SvcTool } from "./SvcTool.ts"
import { ToolRegistry } from "./ToolRegistry.ts"

/** The tools one org can have, by id and in order (plugins first). */
export interface Catalogue {
  readonly get: (id: string) => SvcTool | undefined
  readonly all: ReadonlyArray<SvcTool>
}

interface Source {
  /** Null for a source every org has (the operator's). */
  readonly orgId: string | null
  readonly tools: ReadonlyArray<SvcTool>
}

const catalogueOf = (tools: ReadonlyArray<SvcTool>): Catalogue => {
  const byId = new Map<string, SvcTool>()
  // the first of a taken id wins: a plugin's id is never shadowed by an MCP tool
  for (const tool of tools) if (!byId.has(tool.id)) byId.set(tool.id, tool)
  return { get: (id) => byId.get(id), all: [...byId.values()] }
}

export class ToolCatalogue extends Context.Service<ToolCatalogue, {
  /** The tools every org can have: plugins and the operator's MCP servers' tools. */
  readonly global: () => Catalogue
  readonly forOrg: (orgId: string) => Catalogue
  /** Every tool of every org (the MCP endpoint registers them all and shows each to its own org). */
  readonly everything: () => ReadonlyArray<{ readonly orgId: string | null; readonly tool: SvcTool }>
  /** Sets a source's tools (an MCP server's), replacing what it had; `[]` keeps it known but empty. */
  readonly setSource: (name: string, orgId: string | null, tools: ReadonlyArray<SvcTool>) => void
  readonly removeSource: (name: string) => void
  /** Called after every change, with the source's name. */
  readonly onChange: (listener: (source: string) => void) => void
}>()("svc-gateway/ToolCatalogue") {
  static readonly layer = Layer.effect(
    ToolCatalogue,
    Effect.gen(function*() {
      const registry = yield* ToolRegistry
      const sources = new Map<string, Source>()
      const listeners: Array<(source: string) => void> = []
      let globalCatalogue: Catalogue | undefined
      const byOrg = new Map<string, Catalogue>()

      const changed = (name: string) => {
        globalCatalogue = undefined
        byOrg.clear()
        for (const listener of listeners) listener(name)
      }

      const global = () =>
        globalCatalogue ??= catalogueOf([
          ...registry.all,
          ...[...sources.values()].flatMap((source) => source.orgId === null ? source.tools : [])
        ])

      const forOrg = (orgId: string) => {
        let found = byOrg.get(orgId)
        if (found === undefined) {
          found = catalogueOf([
            ...global().all,
            ...[...sources.values()].flatMap((source) => source.orgId === orgId ? source.tools : [])
          ])
          byOrg.set(orgId, found)
        }
        return found
      }

      return ToolCatalogue.of({
        global,
        forOrg,
        everything: () => [
          ...global().all.map((tool) => ({ orgId: null, tool })),
          ...[...sources.values()].flatMap((source) =>
            source.orgId === null ? [] : source.tools.map((tool) => ({ orgId: source.orgId, tool }))
          )
        ],
        setSource: (name, orgId, tools) => {
          sources.set(name, { orgId, tools })
          changed(name)
        },
        removeSource: (name) => {
          if (sources.delete(name)) changed(name)
        },
        onChange: (listener) => {
          listeners.push(listener)
        }
      })
    })
  )
}
