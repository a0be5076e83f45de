/**
 * svc_expand_output: the text that `aggressive` compression cut from one of the caller's tool results,
 * by the id its marker names (`[svc: 120 lines (5400 bytes) cut; svc_expand_output id "cut_..." returns
 * them]`), a page of lines at a time. The gateway offers it by itself in a request whose tool results
 * were cut; a cut is the caller's own (org and key) and kept for the pending-turn time.
 */
import { Effect, Schema } from "effect"
import { defineTool, ToolError } from "../../src/tools/SvcTool.ts"

/** Lines per page when the model asks for no number, and at most. */
export const DEFAULT_LINES = 400
export const MAX_LINES = 2000
/** A page stays under the gateway's limit on a shared tool's result (64 KB by default). */
export const MAX_PAGE_CHARS = 48 * 1024

/** Lines `offset` onwards, at most `maxLines` of them and `MAX_PAGE_CHARS` characters; a note says what is left. */
export const page = (text: string, offset: number, maxLines: number): string => {
  const lines = text.split("\n")
  if (offset >= lines.length) {
    throw new RangeError(`offset ${offset} is past the last line (the text has ${lines.length} lines)`)
  }
  const out: Array<string> = []
  let size = 0
  let end = offset
  while (end < lines.length && out.length < maxLines) {
    const line = lines[end]!
    // a single line longer than a page is cut at the page's end, and said so below
    const room = MAX_PAGE_CHARS - size
    if (line.length + 1 > room && out.length > 0) break
    out.push(line.length > room ? line.slice(0, room) : line)
    size += Math.min(line.length, room) + 1
    end++
  }
  const body = out.join("\n")
  const cutLine = out.length > 0 && lines[end - 1]!.length > out[out.length - 1]!.length
  if (end >= lines.length && offset === 0 && !cutLine) return body
  const notes = [`lines ${offset + 1}-${end} of ${lines.length}`]
  if (cutLine) notes.push(`line ${end} was cut at ${MAX_PAGE_CHARS} characters`)
  if (end < lines.length) notes.push(`call again with offset ${end} for the rest`)
  return `${body}\n[svc: ${notes.join("; ")}]`
}

export const ExpandOutput = defineTool({
  id: "svc_expand_output",
  description:
    "Returns text the gateway cut from an earlier tool result to save tokens. A cut is marked in the result " +
    "as [svc: ... cut; svc_expand_output id \"cut_...\" returns them]: call this with that id when you need " +
    "what was cut (a page of lines at a time; use offset for the next page).",
  parameters: Schema.Struct({
    id: Schema.String.annotate({ description: "The id the marker names, such as cut_Ab12Cd34Ef56Gh78" }),
    offset: Schema.optionalKey(
      Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)).annotate({
        description: "The first line to return, counting from 0 (default 0)"
      })
    ),
    max_lines: Schema.optionalKey(
      Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: MAX_LINES })).annotate({
        description: `How many lines to return at most (default ${DEFAULT_LINES})`
      })
    )
  }),
  timeout: "5 seconds",
  run: ({ id, max_lines, offset }, context) =>
    Effect.gen(function*() {
      const text = yield* context.cutOutput(id)
      if (text === undefined) {
        return yield* new ToolError({
          message:
            `No cut output with id '${id}' for this API key: the id is not one a marker named, or it has expired.`
        })
      }
      return yield* Effect.try({
        try: () => page(text, offset ?? 0, max_lines ?? DEFAULT_LINES),
        catch: (error) => new ToolError({ message: error instanceof Error ? error.message : String(error) })
      })
    })
})
