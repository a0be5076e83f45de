/**
 * Typed errors as OpenAI-shaped HTTP answers, for the routes that speak no other format (admin, models,
 * the console's assets, unknown paths). The mapping itself is `core/Problem.ts`; the chat dialects write
 * the same problems in their own shapes.
 */
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { describeError as describeProblem, type EdgeError } from "../core/Problem.ts"
import { type OpenAiErrorBody, openAiErrorBody } from "../dialects/openai/OpenAiErrors.ts"

export type { EdgeError }

export interface Described {
  readonly status: number
  readonly body: OpenAiErrorBody
}

export const describeError = (error: EdgeError): Described => {
  const problem = describeProblem(error)
  return { status: problem.status, body: openAiErrorBody(problem) }
}

export const errorResponse = (error: EdgeError) => {
  const described = describeError(error)
  return HttpServerResponse.jsonUnsafe(described.body, { status: described.status })
}

/**
 * Answers a handler's typed failures with their error responses. Only `EdgeError`s type-check here,
 * so a new error class must get its mapping before any handler can fail with it; defects are left
 * alone and stay real 500s.
 */
export const respondWithErrors = <A, E extends EdgeError, R>(
  handler: Effect.Effect<A, E, R>
): Effect.Effect<A | HttpServerResponse.HttpServerResponse, never, R> =>
  Effect.catch(handler, (error: E) => Effect.succeed(errorResponse(error)))
