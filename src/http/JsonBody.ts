/**
 * Reads a request body as JSON whatever its content type says (`curl -d` sends a form type), within
 * the configured size limit, and names what went wrong when it cannot.
 */
import { Effect } from "effect"
import { HttpServerRequest } from "effect/http"
import { GatewayConfig } from "../Config.ts"
import { BodyTooLarge, InvalidJson, RequestError } from "../kernel/RequestError.ts"

export const readJsonBody = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const json = yield* request.json.pipe(
    Effect.catchTag("HttpServerError", (error) =>
      Effect.gen(function*() {
        if (error.reason._tag === "RequestParseError" && error.reason.reason === "BodyTooLarge") {
          const { bodyLimitBytes } = yield* GatewayConfig
          return yield* new RequestError({ reason: new BodyTooLarge({ limitBytes: bodyLimitBytes }) })
        }
        return yield* new RequestError({
          reason: new InvalidJson({ message: "The request body is not valid JSON." })
        })
      }))
  )
  if (json === null) {
    return yield* new RequestError({ reason: new InvalidJson({ message: "The request body is empty; send a JSON object." }) })
  }
  return json
})
