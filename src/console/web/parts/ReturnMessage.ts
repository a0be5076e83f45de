/**
 * What the gateway says when it sends the browser back to the console from an MCP server's
 * authorization server (`?mcp_oauth=<server>` or `?mcp_oauth_error=<reason>`), taken out of the
 * address bar so a reload does not say it again.
 */
import type { Message } from "./Notice.tsx"

export const takeReturnMessage = (): Message | null => {
  const url = new URL(location.href)
  const authorized = url.searchParams.get("mcp_oauth")
  const failed = url.searchParams.get("mcp_oauth_error")
  if (authorized === null && failed === null) return null
  url.searchParams.delete("mcp_oauth")
  url.searchParams.delete("mcp_oauth_error")
  history.replaceState(null, "", url.href)
  return failed !== null
    ? { kind: "error", text: failed }
    : { kind: "info", text: `The gateway is authorized at MCP server '${authorized}'; its tools are listed below.` }
}
