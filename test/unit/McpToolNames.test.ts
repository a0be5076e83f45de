/**
 * What of an MCP server reaches a model: server names, tool ids, and each listed tool checked; the
 * ones that fail are left out with the reason, the rest kept with their descriptions cleaned.
 */
import { describe, expect, it } from "vitest"
import { cleanDescription, serverNameProblem, toolIdOf, vetTools } from "../../src/mcp/McpToolNames.ts"

const object = { type: "object", properties: {} }

describe("MCP tool names", () => {
  it("takes 1 to 24 lower-case letters and digits as a server's name", () => {
    expect(serverNameProblem("docs2")).toBeUndefined()
    for (const bad of ["", "2docs", "Docs", "my-docs", "my_docs", "a".repeat(25)]) {
      expect(serverNameProblem(bad)).toContain("not a valid MCP server name")
    }
  })

  it("names a tool svc_mcp_<server>_<tool>, lower case, - and . as _", () => {
    expect(toolIdOf("docs", "Fetch-Page.v2")).toBe("svc_mcp_docs_fetch_page_v2")
  })

  it("leaves out, with the reason, a tool no model may see, and keeps the others", () => {
    const vetted = vetTools("docs", [
      { name: "search", description: "Searches", inputSchema: object },
      { name: "read file", inputSchema: object },
      { name: "x".repeat(60), inputSchema: object },
      { name: "Search", inputSchema: object },
      { name: "listing", inputSchema: { type: "array" } },
      { name: "huge", inputSchema: { type: "object", description: "d".repeat(17_000) } }
    ])
    expect(vetted.tools.map((tool) => [tool.id, tool.remoteName])).toEqual([["svc_mcp_docs_search", "search"]])
    expect(vetted.rejected.map((tool) => tool.reason)).toEqual([
      "its name is not 1 to 64 letters, digits, '_', '-' or '.'",
      `'svc_mcp_docs_${"x".repeat(60)}' is longer than 64 characters`,
      "another of the server's tools is also 'svc_mcp_docs_search'",
      "its input schema is not a JSON Schema of type object",
      "its input schema is over 16384 bytes"
    ])
  })

  it("takes hidden characters out of a description and cuts it at 1,024", () => {
    expect(cleanDescription("Reads\u200b a\u202e file\u0007.\u{e0041}\nSecond line")).toBe("Reads a file.\nSecond line")
    const long = cleanDescription("y".repeat(2_000))
    expect(long).toHaveLength(1_024)
    expect(long.endsWith("…")).toBe(true)
  })
})
