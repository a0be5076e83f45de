/**
 * Every installed shared tool, by id. Built from the typed list in `plugins/index.ts`; start-up fails
 * with a clear message when an id is malformed or taken twice.
 */
import { Context, Effect, Layer, Schema } from "effect"
import { plugins } from "../../plugins/index.ts"
import { SVC_TOOL_ID, type SvcTool } from "./SvcTool.ts"

export class ToolRegistryError extends Schema.TaggedError<ToolRegistryError>()("ToolRegistryError", {
  message: Schema.String
}) {}

export class ToolRegistry extends Context.Service<ToolRegistry, {
  readonly get: (id: string) => SvcTool | undefined
  /** The catalogue, in registration order. */
  readonly all: ReadonlyArray<SvcTool>
}>()("svc-gateway/ToolRegistry") {
  static readonly make = (tools: ReadonlyArray<SvcTool>) =>
    Effect.gen(function*() {
      const byId = new Map<string, SvcTool>()
      for (const tool of tools) {
        if (!SVC_TOOL_ID.test(tool.id)) {
          return yield* new ToolRegistryError({
            message: `shared tool id '${tool.id}' is invalid: it must match ${SVC_TOOL_ID.source}`
          })
        }
        if (byId.has(tool.id)) {
          return yield* new ToolRegistryError({ message: `shared tool id '${tool.id}' is registered twice` })
        }
        byId.set(tool.id, tool)
      }
      return ToolRegistry.of({ get: (id) => byId.get(id), all: [...byId.values()] })
    })

  /** A registry of the given tools (tests). */
  static readonly layerFrom = (tools: ReadonlyArray<SvcTool>) => Layer.effect(ToolRegistry, ToolRegistry.make(tools))

  static readonly layer = ToolRegistry.layerFrom(plugins)
}
