/** JSON whitespace removed between tokens only, validated as it is read. */
import { describe, expect, it } from "vitest"
import { compactJson, scanJson } from "../../src/compression/JsonWhitespace.ts"

describe("compactJson", () => {
  it("removes whitespace outside strings and keeps every character of every token", () => {
    const pretty =
      "{\n  \"id\": 9007199254740993,\n  \"f\": 1.0,\n  \"s\": \"a  b\\n \\u00e9 \\\"q\\\"\",\n  \"a\": [ 1e-7 , true, null, { } ],\n  \"k\": \"k\", \"k\": 2\n}\n"
    expect(compactJson(pretty)).toBe(
      "{\"id\":9007199254740993,\"f\":1.0,\"s\":\"a  b\\n \\u00e9 \\\"q\\\"\",\"a\":[1e-7,true,null,{}],\"k\":\"k\",\"k\":2}"
    )
  })

  it("parses to the same value as the text it came from", () => {
    const pretty = JSON.stringify({ a: [1, { b: "x y" }], c: null, d: "ü" }, null, 2)
    expect(JSON.parse(compactJson(pretty)!)).toEqual(JSON.parse(pretty))
  })

  it("refuses what is not exactly one JSON value", () => {
    for (
      const text of [
        "",
        "{",
        "{}}",
        "{} {}",
        "[1,]",
        "{'a':1}",
        "{\"a\" 1}",
        "01",
        "1.",
        "tru",
        "\"\u0001\"",
        "\"\\x\"",
        "NaN",
        "[1] x"
      ]
    ) {
      expect(compactJson(text), text).toBeUndefined()
    }
  })

  it("handles deep nesting without recursion, and refuses absurd depth", () => {
    const deep = "[".repeat(5000) + "]".repeat(5000)
    expect(compactJson(deep)).toBe(deep)
    expect(compactJson("[".repeat(20_000) + "]".repeat(20_000))).toBeUndefined()
  })

  it("scanJson reads one value from a position and says where it ends, or where it failed", () => {
    const text = "HTTP/1.1 200 OK\n\n{ \"a\" : 1 }\nafter"
    const start = text.indexOf("{")
    expect(scanJson(text, start)).toEqual({ ok: true, end: text.indexOf("\nafter"), compact: "{\"a\":1}" })
    expect(scanJson("[INFO] started", 0)).toEqual({ ok: false, at: 1 })
    expect(scanJson("[1, 2, 3, 4, 5, 6]", 0, 5)).toMatchObject({ ok: false })
  })
})
