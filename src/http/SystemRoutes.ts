/** Liveness, readiness (the store answers) and the model list. */
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { SqlClient } from "effect/sql"
import { Auth } from "../auth/Auth.ts"
import { Providers } from "../providers/Providers.ts"
import { respondWithErrors } from "./ErrorResponse.ts"

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

/** OpenAI's model list; it needs an API key, as OpenAI's does, so coding clients probe auth with it. */
const models = HttpRouter.add(
  "GET",
  "/v1/models",
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    yield* (yield* Auth).authenticate(request.headers["authorization"])
    const { models } = yield* Providers
    return HttpServerResponse.jsonUnsafe({
      object: "list",
      data: models.map((model) => ({ id: model.id, object: "model", created: 0, owned_by: model.owned_by }))
    })
  }).pipe(respondWithErrors)
)

export const SystemRoutes = Layer.mergeAll(health, ready, models)
