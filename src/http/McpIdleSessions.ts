/**
 * MCP sessions end after `GATEWAY_MCP_SESSION_IDLE` without a request (`0 seconds`: never). `effect/ai`'s `McpServer` keeps a
 * session (its client's initialize payload and what it negotiated, a kilobyte or two) until the client
 * sends a DELETE, and most clients never do: Claude Code opens a session each time it starts and leaves
 * it when it quits, so an instance that ran for weeks held every session of every start.
 *
 * The server has no way to end a session but its DELETE route, so the sweep sends that route a DELETE
 * of its own, through the router, marked with `EndingIdleSession` so the key check lets it by (a context
 * service: nothing a request carries can set it). The client's next request with that session gets
 * 404, which the MCP specification makes the signal to initialize again.
 *
 * Sessions are noted when they are answered, in the order they were last used (`LastUsed`), so a
 * sweep reads only the idle ones.
 */
import { Clock, Context, Duration, Effect, Layer, Schedule } from "effect"
import { HttpEffect, HttpRouter, HttpServerRequest } from "effect/http"
import type { HttpServerResponse } from "effect/http"
import { GatewayConfig } from "../Config.ts"
import { LastUsed } from "../kernel/LastUsed.ts"
import { Metrics } from "../observability/Metrics.ts"

const SESSION_HEADER = "mcp-session-id"

/** Marks the sweep's own DELETE of an idle session: the key check lets it by. */
export class EndingIdleSession extends Context.Service<EndingIdleSession, true>()("svc-gateway/EndingIdleSession") {}

export interface McpIdleSessionsShape {
  /** Notes, once the current `/mcp` request is answered, the session it opened, used or ended. */
  readonly watch: Effect.Effect<void, never, HttpServerRequest.HttpServerRequest>
}

export class McpIdleSessions extends Context.Service<McpIdleSessions, McpIdleSessionsShape>()(
  "svc-gateway/McpIdleSessions"
) {
  /** Needs the router the MCP endpoint is on, at `path`; sweeps while the layer's scope is open. */
  static readonly layer = (
    path: string
  ): Layer.Layer<McpIdleSessions, never, GatewayConfig | HttpRouter.HttpRouter | Metrics> =>
    Layer.effect(
      McpIdleSessions,
      Effect.gen(function*() {
        const config = yield* GatewayConfig
        const router = yield* HttpRouter.HttpRouter
        const metrics = yield* Metrics
        const idleMillis = Duration.toMillis(config.mcpSessionIdle)
        const lastUsed = new LastUsed<string>()
        let expired = 0
        metrics.setMcpSessionStats(() => ({ open: lastUsed.size, expired }))

        const noteAnswer = (
          request: HttpServerRequest.HttpServerRequest,
          response: HttpServerResponse.HttpServerResponse
        ) =>
          Effect.map(Clock.currentTimeMillis, (now) => {
            const session = request.headers[SESSION_HEADER] ?? response.headers[SESSION_HEADER]
            if (session === undefined) return response
            // 404: unknown here (ended, or opened on another instance); a DELETE that succeeded ended it
            const ended = response.status === 404 || (request.method === "DELETE" && response.status < 300)
            if (ended) lastUsed.forget(session)
            else if (response.status < 400) lastUsed.use(session, now)
            return response
          })

        // built on first use: by then every route is on the router
        let routed: ReturnType<typeof router.asHttpEffect> | undefined
        const end = (session: string) =>
          Effect.suspend(() => (routed ??= router.asHttpEffect())).pipe(
            Effect.provideService(
              HttpServerRequest.HttpServerRequest,
              HttpServerRequest.fromWeb(
                new Request(`http://svc-gateway${path}`, { method: "DELETE", headers: { [SESSION_HEADER]: session } })
              )
            ),
            Effect.provideService(EndingIdleSession, true),
            Effect.scoped,
            Effect.matchCauseEffect({
              onSuccess: (response) => {
                if (response.status < 300) return Effect.sync(() => void expired++)
                // 404: ended meanwhile by other means; anything else is the server refusing its own route
                return response.status === 404
                  ? Effect.void
                  : Effect.logWarning(`An idle MCP session could not be ended: its DELETE answered ${response.status}`)
              },
              onFailure: (cause) => Effect.logWarning("An idle MCP session could not be ended", cause)
            })
          )

        const sweep = Effect.flatMap(
          Clock.currentTimeMillis,
          (now) => Effect.forEach(lastUsed.takeIdle(now - idleMillis), end, { discard: true })
        )
        // a sweep a minute, or two an idle time when that is shorter (tests idle a fraction of a second);
        // none at `0 seconds`, which keeps every session
        if (idleMillis > 0) {
          const every = Duration.millis(Math.min(idleMillis / 2, 60_000))
          yield* sweep.pipe(Effect.repeat(Schedule.spaced(every)), Effect.forkScoped)
        }

        return { watch: HttpEffect.appendPreResponseHandler(noteAnswer) }
      })
    )
}
