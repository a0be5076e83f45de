/**
 * Runs the shared-tool calls of one model turn: in parallel, each decoded by its schema, bounded by its
 * timeout and by the output cap, each in its own span. Nothing here fails: a call to a tool that was not
 * injected for this request, a tool error, a timeout or even a plugin bug becomes a result the model
 * reads, so a tool can never crash a client's request.
 */
import { Cause, Duration, Effect } from "effect"
import type { ToolCall } from "../kernel/Canonical.ts"
import type { SvcTool, ToolContext } from "./SvcTool.ts"

export interface ToolRunResult {
  readonly toolCallId: string
  readonly toolId: string
  readonly outcome: "ok" | "error" | "timeout" | "not_allowed"
  /** What the model reads as the tool message's content. */
  readonly content: string
}

export interface ToolRunLimits {
  readonly defaultTimeout: Duration.Duration
  readonly maxOutputBytes: number
}

const errorContent = (message: string) => JSON.stringify({ error: message })

const render = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value) ?? "null")

/** Where a turn's calls run: the tools injected into it (by id), the caller's context, the limits. */
export interface ToolRunSetting {
  readonly injected: ReadonlyMap<string, SvcTool>
  readonly context: ToolContext
  readonly limits: ToolRunLimits
}

const runOne = (call: ToolCall, { context, injected, limits }: ToolRunSetting): Effect.Effect<ToolRunResult> => {
  const toolId = call.function.name
  const result = (outcome: ToolRunResult["outcome"], content: string): ToolRunResult => ({
    toolCallId: call.id,
    toolId,
    outcome,
    content
  })
  const tool = injected.get(toolId)
  if (tool === undefined) {
    return Effect.succeed(result(
      "not_allowed",
      errorContent(`The shared tool '${toolId}' is not available in this conversation.`)
    ))
  }
  const timeout = tool.timeout ?? limits.defaultTimeout
  return tool.invoke(call.function.arguments, context).pipe(
    Effect.map((value) => {
      const content = render(value)
      return Buffer.byteLength(content) > limits.maxOutputBytes
        ? result("error", errorContent(`The tool's output exceeded ${limits.maxOutputBytes} bytes.`))
        : result("ok", content)
    }),
    Effect.timeoutOrElse({
      duration: timeout,
      orElse: () =>
        Effect.succeed(result("timeout", errorContent(`The tool timed out after ${Duration.format(timeout)}.`)))
    }),
    Effect.catchTag("ToolError", (error) => Effect.succeed(result("error", errorContent(error.message)))),
    Effect.catchDefect((defect) =>
      Effect.logError("shared tool failed unexpectedly", Cause.fail(defect)).pipe(
        Effect.annotateLogs({ tool: toolId }),
        Effect.as(result("error", errorContent("The tool failed unexpectedly.")))
      )
    )
  )
}

/** Runs every call concurrently; results come back in the calls' order. */
export const runToolCalls = (
  calls: ReadonlyArray<ToolCall>,
  setting: ToolRunSetting
): Effect.Effect<ReadonlyArray<ToolRunResult>> =>
  Effect.forEach(
    calls,
    (call) => {
      const started = Date.now()
      return runOne(call, setting).pipe(
        Effect.tap((outcome) =>
          Effect.annotateCurrentSpan({
            "svc.tool.outcome": outcome.outcome,
            "svc.tool.duration_ms": Date.now() - started
          })
        ),
        Effect.withSpan("SvcTool.run", {
          attributes: {
            "svc.tool.id": call.function.name,
            "svc.org.id": setting.context.orgId,
            "svc.key.id": setting.context.keyId,
            "svc.request.id": setting.context.requestId
          }
        })
      )
    },
    { concurrency: "unbounded" }
  )
