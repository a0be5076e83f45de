/**
 * `GET /v1/svc/sessions/{session_id}`: one client session's sums, as the admin API's `/sessions/{id}`
 * gives them, for the developer whose key made it: authenticated with a gateway API key (not the admin
 * token) and limited to that key's own requests, so a key sees its own sessions and nothing else. It is
 * what `svc-gateway statusline` shows in Claude Code's status line. The log is written in batches, so a
 * request shows here a moment after it is answered.
 */
import { Effect } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { Auth } from "../auth/Auth.ts"
import { OpenAiChat } from "../dialects/openai/OpenAiChat.ts"
import { AdminError } from "../kernel/AdminError.ts"
import { RequestQueries } from "../logs/RequestQueries.ts"
import { errorResponse } from "./ErrorResponse.ts"

const dialect = OpenAiChat

export const SessionRoute = HttpRouter.add(
  "GET",
  "/v1/svc/sessions/:session_id",
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const { session_id: sessionId = "" } = yield* HttpRouter.params
    const queries = yield* RequestQueries
    return yield* (yield* Auth).authenticateKey(dialect.apiKey(request.headers)).pipe(
      Effect.flatMap((caller) =>
        queries.sessions(caller.orgId, { sessionId, keyId: caller.keyId }, 1).pipe(
          Effect.flatMap(({ data: [session] }) =>
            session === undefined
              ? Effect.fail(AdminError.notFound("session", sessionId))
              : Effect.succeed(HttpServerResponse.jsonUnsafe({ object: "svc.session", ...session }))
          )
        )
      ),
      Effect.catch((error) => Effect.succeed(errorResponse(error)))
    )
  })
)
