/**
 * One tool of an MCP server as a shared tool: the model's arguments parsed, the call made on the
 * server's connection, its result's text returned, and a result marked as an error, a server out of
 * reach or one wanting authorization made a `ToolError` the model reads. Each call is logged with the
 * server, tool, duration and outcome, and annotated on its span.
 */
import { Effect } from "effect"
import { parseArguments, type SvcTool, ToolError } from "../tools/SvcTool.ts"
import { errorText, type McpConnection } from "./McpConnection.ts"
import { isUnauthorized } from "./McpOAuth.ts"
import type { VettedTool } from "./McpToolNames.ts"

/** What a call to an OAuth server no one has authorized yet says. */
export const NOT_AUTHORIZED = "an org admin must authorize the gateway at it (console: MCP servers, Authorize)"

/** A server as its tools reach it. */
export interface ServerLink {
  readonly name: string
  /** Its connection: the one kept, or a new one. */
  readonly connection: () => Promise<McpConnection>
  /** Whether a connection is kept (and so may be stale). */
  readonly kept: () => boolean
  /** Forgets the connection (closing it): the next use connects anew. */
  readonly drop: () => void
}

/**
 * `use` on the server's connection; a kept one may be to a server that restarted (its session gone),
 * so on a failure it is dropped and `use` tried once more on a new one. A failure of a new connection,
 * an abort, or a want of authorization is not tried again; a connection that failed is never kept.
 */
export const onceMore = async <A>(
  link: ServerLink,
  use: (connection: McpConnection) => Promise<A>,
  signal?: AbortSignal
): Promise<A> => {
  const kept = link.kept()
  try {
    return await use(await link.connection())
  } catch (cause) {
    link.drop()
    if (!kept || signal?.aborted === true || isUnauthorized(cause)) throw cause
    try {
      return await use(await link.connection())
    } catch (again) {
      link.drop()
      throw again
    }
  }
}

export const mcpTool = (link: ServerLink, vetted: VettedTool): SvcTool => ({
  id: vetted.id,
  description: vetted.description,
  jsonSchema: vetted.inputSchema,
  timeout: undefined,
  invoke: (argumentsJson) =>
    Effect.gen(function*() {
      const args = yield* parseArguments(argumentsJson)
      const started = Date.now()
      const outcome = yield* Effect.tryPromise({
        try: (signal) => onceMore(link, (connection) => connection.callTool(vetted.remoteName, args, signal), signal),
        catch: (cause) =>
          new ToolError({
            message: isUnauthorized(cause)
              ? `The MCP server '${link.name}' is not authorized: ${NOT_AUTHORIZED}.`
              : `The MCP server '${link.name}' could not be reached: ${errorText(cause)}`
          })
      }).pipe(Effect.result)
      const status = outcome._tag === "Failure" ? "unreachable" : outcome.success.isError ? "error" : "ok"
      yield* Effect.logInfo("MCP tool call").pipe(
        Effect.annotateLogs({
          "svc.mcp.server": link.name,
          "svc.mcp.tool": vetted.remoteName,
          "svc.tool.duration_ms": Date.now() - started,
          "svc.tool.outcome": status
        })
      )
      yield* Effect.annotateCurrentSpan({ "svc.mcp.server": link.name, "svc.mcp.tool": vetted.remoteName })
      if (outcome._tag === "Failure") return yield* outcome.failure
      if (outcome.success.isError) {
        return yield* new ToolError({ message: outcome.success.text || "The MCP tool failed." })
      }
      return outcome.success.text
    })
})
