/**
 * A Messages request's tools and tool choice in the gateway's model. Custom tools become functions
 * (`input_schema` is the function's `parameters`, a cache breakpoint stays on the tool); server tools
 * (`web_search_20250305`, `bash_20250124`, ...) have no chat-completions equivalent and are dropped
 * across formats, named `tools[i].<type>`. Tool choice takes its chat-completions names: `any` is
 * `required`, `tool` a named function.
 */
import type { ToolDefinition } from "../../kernel/Canonical.ts"
import type { ToolChoice } from "../../kernel/ChatCall.ts"
import { isRecord } from "../../kernel/Json.ts"
import { RequestError } from "../../kernel/RequestError.ts"

/** A tool as the request's schema checked it: a name, and whatever its type carries. */
export interface ToolBlock {
  readonly name: string
  readonly type?: string
  readonly [key: string]: unknown
}

export interface ToolChoiceBlock {
  readonly type: "auto" | "any" | "tool" | "none"
  readonly name?: string
  readonly [key: string]: unknown
}

/** The client's custom tools as functions; server tools named in `dropped`. */
export const decodeTools = (
  tools: ReadonlyArray<ToolBlock>,
  dropped: Array<string>
): ReadonlyArray<ToolDefinition> | RequestError => {
  const functions: Array<ToolDefinition> = []
  for (const [i, tool] of tools.entries()) {
    if (tool.type !== undefined && tool.type !== "custom") {
      dropped.push(`tools[${i}].${tool.type}`)
      continue
    }
    if (tool.name.startsWith("svc_")) {
      return RequestError.invalidField(
        `tools[${i}].name`,
        `Invalid value for 'tools[${i}].name': names starting with 'svc_' are reserved for the gateway's shared tools; list a shared tool in svc_tool_ids instead, or rename your tool.`,
        "reserved_tool_name"
      )
    }
    const schema = tool["input_schema"]
    if (schema === undefined) {
      return RequestError.invalidField(
        `tools[${i}].input_schema`,
        `Missing required parameter: 'tools[${i}].input_schema'.`,
        "missing_required_parameter"
      )
    }
    if (!isRecord(schema)) {
      return RequestError.invalidField(
        `tools[${i}].input_schema`,
        `Invalid value for 'tools[${i}].input_schema': Expected a JSON Schema object.`,
        "invalid_value"
      )
    }
    const description = tool["description"]
    if (description !== undefined && typeof description !== "string") {
      return RequestError.invalidField(
        `tools[${i}].description`,
        `Invalid value for 'tools[${i}].description': Expected a string.`,
        "invalid_value"
      )
    }
    functions.push({
      type: "function",
      function: { name: tool.name, ...(description === undefined ? {} : { description }), parameters: schema },
      ...(tool["cache_control"] === undefined ? {} : { cache_control: tool["cache_control"] })
    })
  }
  return functions
}

/** The tool choice in chat-completions terms; `tool` must name its tool. */
export const decodeToolChoice = (choice: ToolChoiceBlock | undefined): ToolChoice | undefined | RequestError => {
  switch (choice?.type) {
    case undefined:
      return undefined
    case "auto":
      return "auto"
    case "any":
      return "required"
    case "none":
      return "none"
    case "tool":
      return choice.name === undefined
        ? RequestError.invalidField(
          "tool_choice.name",
          "Missing required parameter: 'tool_choice.name'.",
          "missing_required_parameter"
        )
        : { type: "function", function: { name: choice.name } }
  }
}
