/** Liveness, readiness (the store answers) and the model list. */
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { SqlClient } from "effect/sql"
import { Auth } from "../auth/Auth.ts"
import { describeError } from "../core/Problem.ts"
import { AnthropicMessages } from "../dialects/anthropic/AnthropicDialect.ts"
import { OpenAiChat } from "../dialects/openai/OpenAiChat.ts"
import { Providers } from "../providers/Providers.ts"

const health = HttpRouter.add("GET", "/health", HttpServerResponse.jsonUnsafe({ status: "ok" }))

const ready = HttpRouter.add(
  "GET",
  "/ready",
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return yield* sql`SELECT 1`.pipe(
      Effect.timeout("2 seconds"),
      Effect.match({
        onSuccess: () => HttpServerResponse.jsonUnsafe({ status: "ready" }),
        onFailure: () => HttpServerResponse.jsonUnsafe({ status: "unavailable", store: "down" }, { status: 503 })
      })
    )
  })
)

/**
 * The model list; it needs an API key, as the providers' own do, so coding clients probe auth with it.
 * OpenAI's list shape, or Anthropic's when the request says `anthropic-version` (Claude Code's gateway
 * model discovery, which sends its key as `x-api-key`).
 */
const models = HttpRouter.add(
  "GET",
  "/v1/models",
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const anthropic = request.headers["anthropic-version"] !== undefined
    const dialect = anthropic ? AnthropicMessages : OpenAiChat
    const caller = (yield* Auth).authenticateKey(dialect.apiKey(request.headers))
    const models = (yield* Providers).models()
    return yield* caller.pipe(
      Effect.map(() =>
        HttpServerResponse.jsonUnsafe(
          anthropic
            ? {
              data: models.map((model) => ({
                type: "model",
                id: model.id,
                display_name: model.id,
                created_at: "1970-01-01T00:00:00Z"
              })),
              has_more: false,
              first_id: models[0]?.id ?? null,
              last_id: models.at(-1)?.id ?? null
            }
            : {
              object: "list",
              data: models.map((model) => ({ id: model.id, object: "model", created: 0, owned_by: model.owned_by }))
            }
        )
      ),
      Effect.catch((error) => {
        const { body, status } = dialect.errorBody(describeError(error))
        return Effect.succeed(HttpServerResponse.jsonUnsafe(body, { status }))
      })
    )
  })
)

export const SystemRoutes = Layer.mergeAll(health, ready, models)
