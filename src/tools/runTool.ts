/**
 * Runs one shared tool alone, as the gateway would (arguments encoded as JSON, decoded by the tool's
 * schema, then run): the helper every plugin test uses.
 */
import { Effect } from "effect"
import type { SvcTool, ToolContext, ToolError } from "./SvcTool.ts"

export const testContext: ToolContext = {
  orgId: "org_test",
  keyId: "key_test",
  requestId: "req_test",
  cutOutput: () => Effect.succeed(undefined)
}

export const runTool = (
  tool: SvcTool,
  args: unknown,
  context: ToolContext = testContext
): Effect.Effect<unknown, ToolError> => tool.invoke(typeof args === "string" ? args : JSON.stringify(args), context)
