/**
 * What of an MCP server reaches a model, checked first: the server's name (it names its tools), and
 * each tool's name, description and input schema. A server is someone else's code: a name the model
 * API would refuse, a description hiding text in control or invisible characters, or a schema that is
 * not an object would reach every request of the org. A tool that fails a check is left out, with the
 * reason, and the server's other tools are kept.
 */
import { SVC_TOOL_ID } from "../tools/SvcTool.ts"

/** A server's name: short, lower case, so `svc_mcp_<server>_<tool>` stays a valid tool id. */
export const SERVER_NAME = /^[a-z][a-z0-9]{0,23}$/

/** The model APIs' limit on a function's name. */
const TOOL_ID_MAX = 64
const DESCRIPTION_MAX = 1_024
const SCHEMA_MAX_BYTES = 16 * 1_024

/** C0/C1 controls but tab and newline, zero-width and bidirectional marks, tag characters. */
const HIDDEN =
  // eslint-disable-next-line no-control-regex -- control characters are what it finds
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]|[\u{e0000}-\u{e007f}]/gu

export const serverNameProblem = (name: string): string | undefined =>
  SERVER_NAME.test(name)
    ? undefined
    : `'${name}' is not a valid MCP server name: 1 to 24 lower-case letters and digits, starting with a letter.`

/** `svc_mcp_<server>_<tool>`: the tool's name in lower case, `-` and `.` as `_`. */
export const toolIdOf = (server: string, tool: string): string =>
  `svc_mcp_${server}_${tool.toLowerCase().replace(/[-.]/g, "_")}`

/** A remote tool as the server listed it. */
export interface RemoteTool {
  readonly name: string
  readonly description?: string | undefined
  readonly inputSchema: unknown
}

/** A remote tool as the gateway offers it. */
export interface VettedTool {
  readonly id: string
  readonly remoteName: string
  readonly description: string
  readonly inputSchema: Readonly<Record<string, unknown>>
}

export interface Vetted {
  readonly tools: ReadonlyArray<VettedTool>
  /** The tools left out, each with why. */
  readonly rejected: ReadonlyArray<{ readonly name: string; readonly reason: string }>
}

/** The server's tools that may reach a model, and those that may not. */
export const vetTools = (server: string, listed: ReadonlyArray<RemoteTool>): Vetted => {
  const tools: Array<VettedTool> = []
  const rejected: Array<{ name: string; reason: string }> = []
  const taken = new Set<string>()
  for (const remote of listed) {
    const name = String(remote.name)
    const id = toolIdOf(server, name)
    const reason = !/^[A-Za-z0-9_.-]{1,64}$/.test(name)
      ? "its name is not 1 to 64 letters, digits, '_', '-' or '.'"
      : id.length > TOOL_ID_MAX || !SVC_TOOL_ID.test(id)
      ? `'${id}' is longer than ${TOOL_ID_MAX} characters`
      : taken.has(id)
      ? `another of the server's tools is also '${id}'`
      : !isObjectSchema(remote.inputSchema)
      ? "its input schema is not a JSON Schema of type object"
      : JSON.stringify(remote.inputSchema).length > SCHEMA_MAX_BYTES
      ? `its input schema is over ${SCHEMA_MAX_BYTES} bytes`
      : undefined
    if (reason !== undefined) {
      rejected.push({ name: name.slice(0, 100), reason })
      continue
    }
    taken.add(id)
    tools.push({
      id,
      remoteName: name,
      description: cleanDescription(remote.description ?? ""),
      inputSchema: remote.inputSchema as Record<string, unknown>
    })
  }
  return { tools, rejected }
}

const isObjectSchema = (schema: unknown): boolean =>
  typeof schema === "object" && schema !== null && !Array.isArray(schema) &&
  (schema as { type?: unknown }).type === "object"

/** Hidden characters out, at most `DESCRIPTION_MAX` characters. */
export const cleanDescription = (text: string): string => {
  const visible = text.replace(HIDDEN, "").trim()
  return visible.length > DESCRIPTION_MAX ? `${visible.slice(0, DESCRIPTION_MAX - 1)}…` : visible
}
