/** OpenAI's error body, `{"error":{"message","type","param","code"}}`, from a `Problem`. */
import type { Problem } from "../../core/Problem.ts"

export interface OpenAiErrorBody {
  readonly error: {
    readonly message: string
    readonly type: string
    readonly param: string | null
    readonly code: string | null
    readonly [extra: string]: unknown
  }
}

export const openAiErrorBody = (problem: Problem): OpenAiErrorBody => ({
  error: { message: problem.message, type: problem.type, param: problem.param, code: problem.code, ...problem.extra }
})
