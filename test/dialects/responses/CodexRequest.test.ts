/**
 * A request Codex really sent (test/fixtures/codex), decoded by the Responses dialect: every message and
 * function tool in the gateway's model, the tool types and fields the model lacks named as dropped, and
 * the body kept as the same object for a Responses upstream.
 */
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { parseResponsesCall } from "../../../src/dialects/responses/ResponsesRequest.ts"

const body = JSON.parse(
  readFileSync(new URL("../../fixtures/codex/responses-request.json", import.meta.url), "utf8")
) as Record<string, unknown>

describe("a captured Codex request", () => {
  const call = Effect.runSync(parseResponsesCall(body, {}))

  it("its messages, in order (this release sends its instructions as developer messages)", () => {
    expect(body["instructions"]).toBeUndefined()
    expect(call.messages.map((message) => message.role)).toEqual(["developer", "developer", "user", "user"])
    expect(typeof call.messages[0]?.content).toBe("string")
    expect(call.messages.at(-1)?.content).toEqual([{ type: "text", text: "say hi" }])
    expect(call.stream).toBe(true)
    expect(call.model).toBe("local/echo")
  })

  it("its function tools in the model; namespace and web_search dropped by name, with the fields chat has no name for", () => {
    expect(call.tools?.map((tool) => tool.function.name)).toEqual([
      "exec_command",
      "write_stdin",
      "request_user_input",
      "view_image",
      "get_goal",
      "create_goal",
      "update_goal"
    ])
    expect(call.dropped).toEqual(["include", "client_metadata", "tools[4].namespace", "tools[8].web_search"])
    expect(call.toolChoice).toBe("auto")
    expect(call.passthrough).toEqual({ parallel_tool_calls: true, prompt_cache_key: body["prompt_cache_key"] })
  })

  it("the body as it came, the same object, for a Responses upstream", () => {
    expect(call.native?.format).toBe("openai-responses")
    expect(call.native?.body).toBe(body)
  })
})
