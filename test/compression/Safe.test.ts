/** The safe level on tool results. */
import { describe, expect, it } from "vitest"
import { compressArguments, compressSafe } from "../../src/compression/Safe.ts"

const ESC = "\u001b"

describe("compressSafe", () => {
  it("compacts a result that is one JSON value, and nothing else about it", () => {
    const pretty = JSON.stringify({ items: [{ id: 1, name: "a  b" }], next: null }, null, 2)
    expect(compressSafe(pretty)).toBe("{\"items\":[{\"id\":1,\"name\":\"a  b\"}],\"next\":null}")
  })

  it("renders terminal output, compacts JSON blocks and tidies lines, around kept blocks", () => {
    const text = [
      `${ESC}[32m✓${ESC}[0m built   `,
      "",
      "",
      "```",
      "code  ",
      "",
      "",
      "```",
      "HTTP/1.1 200 OK",
      "{",
      "  \"ok\": true",
      "}",
      "<system-reminder>",
      `  ${ESC}[31mkept${ESC}[0m  `,
      "</system-reminder>"
    ].join("\n")
    // a blank run before a kept block is one blank line, as between any two lines
    expect(compressSafe(text)).toBe([
      "✓ built",
      "",
      "```",
      "code  ",
      "",
      "",
      "```",
      "HTTP/1.1 200 OK",
      "{\"ok\":true}",
      "<system-reminder>",
      `  ${ESC}[31mkept${ESC}[0m  `,
      "</system-reminder>"
    ].join("\n"))
  })

  it("never makes a text longer, and returns it as it was when nothing got shorter", () => {
    const text = "already tidy\nlines here"
    expect(compressSafe(text)).toBe(text)
    expect(compressSafe("short  ")).toBe("short  ")
  })

  it("is idempotent", () => {
    const text = `${ESC}[1mPASS${ESC}[0m  a\r\n` + "same line again and again\n".repeat(20) +
      "{\n \"a\": [1, 2]\n}\n\n\n\nend  "
    const once = compressSafe(text)
    expect(once.length).toBeLessThan(text.length)
    expect(compressSafe(once)).toBe(once)
  })

  it("compresses tool-call arguments only when they are JSON", () => {
    expect(compressArguments("{ \"path\": \"a b.ts\", \"n\": 10 }")).toBe("{\"path\":\"a b.ts\",\"n\":10}")
    expect(compressArguments("not json  ")).toBe("not json  ")
  })
})
