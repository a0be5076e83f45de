/** Fenced and tagged blocks found as whole lines, the rest in between. */
import { describe, expect, it } from "vitest"
import { mayOpenBlock, splitProtected } from "../../src/compression/Protected.ts"

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

  it("finds fences inside list items and block quotes, as CommonMark does", () => {
    // a lazy line keeps the list item open
    expect(kept("- foo\nbar\n  ```\n  x\n\n  ```\nz")).toEqual(["  ```\n  x\n\n  ```\n"])
    // tabs stop every 4 columns; a CRLF text's "\r" is no content
    expect(kept("-\t```\n\tx\n\n\t```\nz")).toEqual(["-\t```\n\tx\n\n\t```\n"])
    expect(kept("- a\r\n\r\n  ```\r\n  x\r\n\r\n  ```\r\nz")).toEqual(["  ```\r\n  x\r\n\r\n  ```\r\n"])
    expect(kept(">```\n>a\n>\n>```\nz")).toEqual([">```\n>a\n>\n>```\n"])
  })

  it("opens no fence where CommonMark has none", () => {
    // a backtick fence's info string holds no backtick: inline code (a tilde fence's may)
    expect(kept("``` inline ` code\n\n\nz")).toEqual([])
    expect(kept("~~~ a ` b\nx\n~~~\nz")).toEqual(["~~~ a ` b\nx\n~~~\n"])
    // 4 columns in, outside any list item: indented code, or a paragraph's text (a compiler's underline)
    expect(kept("para\n\n    ```\n    x\n\n\nz")).toEqual([])
    expect(kept("1 const x: number = \"aaa\"\n                    ~~~~~\n\n\nmore")).toEqual([])
    // a list item closed by a line less indented than its content: its fence is not reopened inside
    expect(kept("- a\n\nb\n  ```\n  x\n  ```\n")).toEqual(["  ```\n  x\n  ```\n"])
    expect(kept("- a\n\nb\n    ```\n    x\n")).toEqual([])
  })

  it("closes a list item's fence only inside the item: a line less indented runs it on, to the end", () => {
    expect(kept("- a\n  ```\n  x\n```\nafter\n\n\n")).toEqual(["  ```\n  x\n```\nafter\n\n\n"])
    expect(kept("> ```\n> x\n```\nafter")).toEqual(["> ```\n> x\n```\nafter"])
  })

  it("stays linear on blank lines, carriage returns and deep nesting", () => {
    for (
      const text of [
        "\n".repeat(200_000),
        "\r".repeat(200_000),
        " \n".repeat(100_000),
        "```\n" + "\n".repeat(200_000),
        "- ".repeat(50_000) + "x\n" + "\n".repeat(100_000) + "```",
        "> ".repeat(50_000) + "```\n" + "> ".repeat(50_000) + "\n".repeat(1000)
      ]
    ) {
      const started = performance.now()
      expect(splitProtected(text).map((p) => p.text).join("")).toBe(text)
      expect(performance.now() - started).toBeLessThan(2_000)
    }
  })

  it("stays linear when many lines open tags that never close", () => {
    const text = "<x>\n".repeat(200_000)
    const started = performance.now()
    expect(kept(text)).toEqual([])
    expect(performance.now() - started).toBeLessThan(2_000)
  })
})

describe("mayOpenBlock", () => {
  // what it answers, as one search of the whole text: a line start, then a fence or a tag
  const reference = /(?:^|\n)(?:[ \t>*+\-.)\d]*(?:```|~~~)|[^\S\n]*<[A-Za-z])/

  it("finds a line that could open a block, and none where a mark sits inside a line", () => {
    expect(mayOpenBlock("x\n  <tag>")).toBe(true)
    expect(mayOpenBlock("<a")).toBe(true)
    expect(mayOpenBlock("a < b and c<d\n1 << 2")).toBe(false)
    expect(mayOpenBlock("x < y  <z\n\t<z")).toBe(true)
    expect(mayOpenBlock("a\n> - ```ts")).toBe(true)
    expect(mayOpenBlock("text ``` inline\nmore ~~~")).toBe(false)
    // a line tried for one mark is tried whole: its fence counts though a "<" came first
    expect(mayOpenBlock("```x <y>")).toBe(true)
    expect(mayOpenBlock("")).toBe(false)
  })

  it("agrees with a search of the whole text on generated texts", () => {
    const alphabet = ["<", "a", " ", "\t", "\n", "\r", "`", "~", ">", "-", "1", ".", "x", "\u00a0"]
    let seed = 7
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31
    for (let n = 0; n < 5_000; n++) {
      let text = ""
      const length = Math.floor(random() * 24)
      for (let i = 0; i < length; i++) text += alphabet[Math.floor(random() * alphabet.length)]
      expect(mayOpenBlock(text), JSON.stringify(text)).toBe(reference.test(text))
    }
  })

  it("reads a long line of marks once", () => {
    for (const text of ["a<".repeat(200_000), "x```".repeat(100_000), "<<<\n".repeat(100_000)]) {
      const started = performance.now()
      expect(mayOpenBlock(text)).toBe(reference.test(text))
      expect(performance.now() - started).toBeLessThan(2_000)
    }
  })
})
