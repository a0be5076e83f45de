/** Fenced and tagged blocks found as whole lines, the rest in between. */
import { describe, expect, it } from "vitest"
import { splitProtected } from "../../src/compression/Protected.ts"

const kept = (text: string) => splitProtected(text).filter((p) => p.kept).map((p) => p.text)

describe("splitProtected", () => {
  it("joins back to the text", () => {
    const text = "a\n```ts\nx  \n```\nb\n<system-reminder>\nr  \n</system-reminder>\nc"
    expect(splitProtected(text).map((p) => p.text).join("")).toBe(text)
  })

  it("keeps fenced blocks to their closing fence, or to the end", () => {
    expect(kept("a\n```\ncode\n```\nb")).toEqual(["```\ncode\n```\n"])
    expect(kept("a\n````\n```\nstill code\n````\nb")).toEqual(["````\n```\nstill code\n````\n"])
    expect(kept("a\n~~~\nopen to the end")).toEqual(["~~~\nopen to the end"])
  })

  it("keeps tagged blocks whose opening tag starts a line, to the closing tag's line", () => {
    expect(kept("x\n<system-reminder>\nkeep  \n</system-reminder> tail\ny")).toEqual([
      "<system-reminder>\nkeep  \n</system-reminder> tail\n"
    ])
    expect(kept("<file path=\"a.ts\">one line</file>\nz")).toEqual(["<file path=\"a.ts\">one line</file>\n"])
    expect(kept("no <b>tag</b> at line start\n<unclosed>\n")).toEqual([])
  })

  it("stays linear when many lines open tags that never close", () => {
    const text = "<x>\n".repeat(200_000)
    const started = performance.now()
    expect(kept(text)).toEqual([])
    expect(performance.now() - started).toBeLessThan(2_000)
  })
})
