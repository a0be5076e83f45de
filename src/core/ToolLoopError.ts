/** The shared-tool loop gave up: the model kept asking for shared tools past the round limit. */
import { Schema } from "effect"

export class RoundLimitReached extends Schema.TaggedError<RoundLimitReached>()("RoundLimitReached", {
  rounds: Schema.Number
}) {}

export class ToolLoopError extends Schema.TaggedError<ToolLoopError>()("ToolLoopError", {
  reason: RoundLimitReached
}) {}
