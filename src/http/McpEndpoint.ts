/**
 * The gateway as an MCP server: `POST /mcp` (streamable HTTP, over `effect/ai`'s `McpServer`),
 * authenticated with a gateway API key as a bearer. `tools/list` gives the shared tools the key may use
 * (activated for its org, allowed for the key; hydration is about chat requests and plays no part);
 * `tools/call` runs one as the tool loop does: the key's request limits, the tool's timeout, the output
 * limit, a `SvcTool.run` span, and a request-log row of kind `svc_tool`. A tool's failure is a result
 * with `isError`, which the client's model reads, never a failed call.
 *
 * So `claude mcp add --transport http svc <gateway>/mcp --header "Authorization: Bearer <key>"` gives
 * Claude Code the org's shared tools directly.
 *
 * MCP sessions (`Mcp-Session-Id`) live in the instance that opened them: behind several instances the
 * load balancer keeps a session on one (sticky on that header), or a client re-initializes on the 404.
 * A session idle for `GATEWAY_MCP_SESSION_IDLE` is ended (`McpIdleSessions.ts`).
 */
import { Context, Effect, Layer, Option } from "effect"
import { McpProtocol, McpSchema, McpServer } from "effect/ai"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { Auth } from "../auth/Auth.ts"
import { GatewayConfig } from "../Config.ts"
import { describeError } from "../core/Problem.ts"
import { newTimeOrderedId } from "../Ids.ts"
import type { Caller } from "../kernel/Caller.ts"
import { emptyUsage } from "../kernel/Canonical.ts"
import { RateLimits } from "../limits/RateLimits.ts"
import { RequestDraft } from "../logs/RequestDraft.ts"
import { RequestLog } from "../logs/RequestLog.ts"
import { CutOutputs } from "../tools/CutOutputs.ts"
import { Policy } from "../tools/Policy.ts"
import { ToolError } from "../tools/SvcTool.ts"
import type { SvcTool } from "../tools/SvcTool.ts"
import { ToolCatalogue } from "../tools/ToolCatalogue.ts"
import { runToolCalls } from "../tools/ToolRunner.ts"
import { errorResponse } from "./ErrorResponse.ts"
import { EndingIdleSession, McpIdleSessions } from "./McpIdleSessions.ts"

/** The key an MCP request came with, for the tools it lists and runs. */
export class McpCaller extends Context.Service<McpCaller, Caller>()("svc-gateway/McpCaller") {}

export const MCP_PATH = "/mcp"

/** Who the sweep's DELETE of an idle session runs as, should anything ask: no org, no tool allowed. */
const SWEEP_CALLER: Caller = {
  keyId: "",
  keyName: "idle MCP session sweep",
  orgId: "",
  allowedSvcToolIds: [],
  logContent: false,
  compression: null
}

/**
 * A wrong or missing key: the gateway's usual 401, with the challenge MCP clients look for. Every
 * request let through is watched for the session it uses; the sweep's own DELETE of an idle session
 * needs no key.
 */
const McpAuthentication = HttpRouter.middleware<{ provides: McpCaller }>()(Effect.gen(function*() {
  const auth = yield* Auth
  const sessions = yield* McpIdleSessions
  return (httpEffect) =>
    Effect.gen(function*() {
      if (Option.isSome(yield* Effect.serviceOption(EndingIdleSession))) {
        return yield* Effect.provideService(httpEffect, McpCaller, SWEEP_CALLER)
      }
      const request = yield* HttpServerRequest.HttpServerRequest
      const caller = yield* Effect.result(auth.authenticate(request.headers["authorization"]))
      if (caller._tag === "Failure") {
        return HttpServerResponse.setHeader(
          errorResponse(caller.failure),
          "www-authenticate",
          `Bearer realm="svc-gateway"`
        )
      }
      const response = yield* Effect.provideService(httpEffect, McpCaller, caller.success)
      // after the MCP server's own pre-response handler, which puts a new session's id on the answer
      yield* sessions.watch
      return response
    })
}))

const storeUnavailable = () => new McpSchema.InternalError({ message: "The gateway's store is unavailable; retry." })

/** A tool is listed, and may be called, only for a key that may use it. */
const CallerMayUse = McpServer.visibility(Effect.gen(function*() {
  const policy = yield* Policy
  return ({ target }: McpServer.MiddlewareOptions) =>
    Effect.flatMap(Effect.service(McpCaller), (caller) =>
      policy.usableBy(caller).pipe(
        Effect.map((tools) => tools.some((tool) => tool.id === target)),
        Effect.mapError(storeUnavailable)
      ))
}))

const text = (content: string, isError: boolean) =>
  new McpSchema.CallToolResult({ content: [{ type: "text", text: content }], isError })

/** Runs one call for the caller: limits, the tool, its log row. */
const callTool = Effect.fnUntraced(
  function*(tool: SvcTool, payload: unknown, caller: Caller, userAgent: string | undefined) {
    const config = yield* GatewayConfig
    const log = yield* RequestLog
    const limits = yield* RateLimits
    const cutOutputs = yield* CutOutputs
    const draft = new RequestDraft(newTimeOrderedId("req"), userAgent, "svc_tool")
    draft.setCaller(caller)
    const argumentsJson = JSON.stringify(payload ?? {})
    if (draft.keepContent) draft.promptText = argumentsJson

    const admitted = caller.limits === undefined ? undefined : yield* Effect.result(limits.admit(caller))
    if (admitted !== undefined && admitted._tag === "Failure") {
      const problem = describeError(admitted.failure)
      yield* log.record(draft.finish(problem.status, problem.code))
      return text(problem.message, true)
    }
    const [run] = yield* runToolCalls([{
      id: draft.id,
      type: "function",
      function: { name: tool.id, arguments: argumentsJson }
    }], {
      injected: new Map([[tool.id, tool]]),
      context: {
        orgId: caller.orgId,
        keyId: caller.keyId,
        requestId: draft.id,
        cutOutput: (id) =>
          cutOutputs.get(caller, id).pipe(
            Effect.mapError(() => new ToolError({ message: "The cut output could not be read just now; try again." }))
          )
      },
      limits: { defaultTimeout: config.toolTimeout, maxOutputBytes: config.toolMaxOutputBytes }
    })
    yield* log.record(draft.finish(200, run!.outcome === "ok" ? null : `tool_${run!.outcome}`, {
      usage: emptyUsage,
      attempts: 0,
      toolRuns: [{ id: tool.id }],
      provider: "svc-gateway",
      model: "",
      text: run!.content
    }))
    return text(run!.content, run!.outcome !== "ok")
  }
)

/**
 * Every shared tool of every org, registered by id (an id names one tool gateway-wide: MCP servers'
 * names are unique), again whenever the catalogue changes; `CallerMayUse` shows each only to keys of
 * an org that may use it, and a call runs the caller's org's tool of that id.
 */
const SharedTools = Layer.effectDiscard(Effect.gen(function*() {
  const server = yield* McpServer.McpServer
  const catalogue = yield* ToolCatalogue
  const services = yield* Effect.context<GatewayConfig | RequestLog | RateLimits | CutOutputs>()
  const runFork = Effect.runForkWith(services)
  const registered = new Map<string, SvcTool>()

  const register = (tool: SvcTool) =>
    Effect.suspend(() => {
      registered.set(tool.id, tool)
      return server.addTool({
        tool: new McpSchema.Tool({
          name: tool.id,
          description: tool.description,
          inputSchema: tool.jsonSchema as McpSchema.Tool["inputSchema"]
        }),
        annotations: Context.empty(),
        services,
        handle: (payload) =>
          Effect.gen(function*() {
            // the HTTP middleware provides the caller to every request it lets through; `addTool`'s type
            // names only MCP's own request context
            const caller = yield* Effect.serviceOption(McpCaller)
            if (Option.isNone(caller)) return yield* new McpSchema.InternalError({ message: "No caller." })
            const own = catalogue.forOrg(caller.value.orgId).get(tool.id)
            if (own === undefined) return text(`The shared tool '${tool.id}' is no longer available.`, true)
            const request = yield* Effect.serviceOption(HttpServerRequest.HttpServerRequest)
            const userAgent = Option.getOrUndefined(request)?.headers["user-agent"]
            return yield* callTool(own, payload, caller.value, userAgent).pipe(
              Effect.provideContext(services),
              Effect.mapError(storeUnavailable)
            )
          })
      })
    })

  const registerNew = () =>
    Effect.forEach(
      catalogue.everything().filter(({ tool }) => registered.get(tool.id) !== tool),
      ({ tool }) => register(tool),
      { discard: true }
    )
  yield* registerNew()
  catalogue.onChange(() => void runFork(Effect.suspend(registerNew)))
})).pipe(Layer.provide(CallerMayUse.layer))

export const McpEndpoint = McpServer.layerHttp({
  name: "svc-gateway",
  version: "0.1.0",
  path: MCP_PATH,
  // newest first: a client offering a version not listed gets the first; Claude Code speaks 2025-11-25
  protocols: [McpProtocol.v2025_11_25, McpProtocol.v2025_06_18, McpProtocol.v2025_03_26],
  allowSessionTermination: true,
  registrations: SharedTools
}).pipe(Layer.provide(McpAuthentication.layer), Layer.provide(McpIdleSessions.layer(MCP_PATH)))
