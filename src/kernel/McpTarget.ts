/** Where an MCP server is and how the gateway reaches it: remote over streamable HTTP, or local over stdio. */
export type McpTarget =
  | { readonly kind: "http"; readonly url: string; readonly headers: Readonly<Record<string, string>> }
  | {
    readonly kind: "stdio"
    readonly command: string
    readonly args: ReadonlyArray<string>
    readonly env: Readonly<Record<string, string>>
  }

/** A server the operator configured (the routing file's `mcp_servers`): its tools are every org's. */
export interface McpServerSpec {
  readonly name: string
  readonly target: McpTarget
}
