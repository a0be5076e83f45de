/**
 * Fences wherever Markdown allows them, kept byte for byte by `safe` and `aggressive` while the text
 * around them is still compressed: in list items (bullet, ordered, nested), in block quotes (nested
 * too), tilde fences, longer fences, and closing lines that do not close.
 */
import { describe, expect, it } from "vitest"
import { compressAggressive } from "../../src/compression/Aggressive.ts"
import { splitProtected } from "../../src/compression/Protected.ts"
import { compressSafe } from "../../src/compression/Safe.ts"

const kept = (text: string) => splitProtected(text).filter((p) => p.kept).map((p) => p.text)

/** Prose with trailing spaces and blank runs around the block: what compression must still tidy. */
interface Case {
  readonly name: string
  readonly before: ReadonlyArray<string>
  readonly block: ReadonlyArray<string>
  readonly after: ReadonlyArray<string>
  /** `before` and `after` as `safe` leaves them. */
  readonly tidy: readonly [ReadonlyArray<string>, ReadonlyArray<string>]
}

const cases: ReadonlyArray<Case> = [
  {
    name: "a fence in a bullet list item, blank lines and trailing spaces inside",
    before: ["Steps:   ", "", "", "- install   ", "", ""],
    block: ["  ```sh", "  npm ci  ", "", "", "", "  npm test", "  ```"],
    after: ["", "", "- done   "],
    tidy: [["Steps:", "", "- install", ""], ["", "- done"]]
  },
  {
    name: "a fence opened on the list marker's line",
    before: ["intro   ", "", ""],
    block: ["- ```", "  a  ", "", "", "  b", "  ```"],
    after: ["next   "],
    tidy: [["intro", ""], ["next"]]
  },
  {
    name: "a fence in an ordered list item (content 3 columns in), closed indented",
    before: ["1. first   ", "", ""],
    block: ["   ```py", "   def f():", "", "", "       return 1   ", "     ```"],
    after: ["", "", "2. second   "],
    tidy: [["1. first", ""], ["", "2. second"]]
  },
  {
    name: "a fence in a 10. item (content 4 columns in)",
    before: ["10. tenth   ", "", ""],
    block: ["    ```", "    x  ", "", "", "    ```"],
    after: ["", "", "11. next   "],
    tidy: [["10. tenth", ""], ["", "11. next"]]
  },
  {
    name: "a fence in a nested list item (4 columns in: indented code at the top level)",
    before: ["- outer   ", "  - inner   ", "", ""],
    block: ["    ```ts", "    const a = 1  ", "", "", "", "    const b = 2", "    ```"],
    after: ["  - sibling   ", "", "", "end   "],
    tidy: [["- outer", "  - inner", ""], ["  - sibling", "", "end"]]
  },
  {
    name: "a fence in a block quote, its blank lines quoted",
    before: ["> Quoted   ", ">", ">"],
    block: ["> ```", "> a  ", ">", ">", "> b", "> ```"],
    after: ["", "", "after   "],
    tidy: [["> Quoted", ">", ">"], ["", "after"]]
  },
  {
    name: "a fence in a nested block quote, markers spaced or not",
    before: ["> > deep   ", "", ""],
    block: ["> > ~~~", "> > a  ", "> >", "> >", ">> ~~~"],
    after: ["", "", "after   "],
    tidy: [["> > deep", ""], ["", "after"]]
  },
  {
    name: "a fence in a list item in a block quote",
    before: ["> - item   ", ">", ">"],
    block: [">   ```", ">   x  ", ">", ">", ">   ```"],
    after: ["", "", "after   "],
    tidy: [["> - item", ">", ">"], ["", "after"]]
  },
  {
    name: "a tilde fence holding backtick fences and a shorter tilde run",
    before: ["text   ", "", ""],
    block: ["~~~~ markdown", "```", "  code  ", "", "", "```", "~~~", "~~~~"],
    after: ["", "", "end   "],
    tidy: [["text", ""], ["", "end"]]
  },
  {
    name: "a four-backtick fence holding ``` lines",
    before: ["text   ", "", ""],
    block: ["````md", "```ts", "x  ", "", "", "```", "````"],
    after: ["", "", "end   "],
    tidy: [["text", ""], ["", "end"]]
  },
  {
    name: "a closing fence shorter than the opening does not close it",
    before: ["text   ", "", ""],
    block: ["`````", "````", "", "", "a  ", "`````"],
    after: ["", "", "end   "],
    tidy: [["text", ""], ["", "end"]]
  },
  {
    name: "a run of the other character does not close a fence",
    before: ["text   ", "", ""],
    block: ["```", "~~~", "", "", "a  ", "~~~~~~", "```"],
    after: ["", "", "end   "],
    tidy: [["text", ""], ["", "end"]]
  },
  {
    name: "a run with an info string, or indented 4 columns in its container, does not close a fence",
    before: ["- item   ", "", ""],
    block: ["  ```", "  ```ts", "", "", "      ```", "  ```"],
    after: ["", "", "end   "],
    tidy: [["- item", ""], ["", "end"]]
  },
  {
    name: "a fence left open in a list item runs to the end of the text",
    before: ["text   ", "", ""],
    block: ["- ```", "  a  ", "", "", "", "not in the item any more   ", "", ""],
    after: [],
    tidy: [["text", ""], []]
  }
]

describe("fences in Markdown containers", () => {
  for (const c of cases) {
    const text = [...c.before, ...c.block, ...c.after].join("\n")
    const expected = [...c.tidy[0], ...c.block, ...c.tidy[1]].join("\n")

    it(`${c.name}: kept byte for byte, the text around it tidied`, () => {
      // a kept piece ends with its last line's "\n", unless it ends the text
      expect(kept(text)).toEqual([c.block.join("\n") + (c.after.length > 0 ? "\n" : "")])
      expect(compressSafe(text)).toBe(expected)
      expect(compressAggressive(text, new Set()).text).toBe(expected)
    })
  }

  it("aggressive folds similar lines around a list item's fence, never the similar lines inside it", () => {
    const steps = (prefix: string) =>
      Array.from({ length: 9 }, (_, i) => `${prefix}2026-11-25T10:00:0${i}Z step ${i + 1} of 9 done in ${i * 7}ms`)
    const block = ["- log:", "  ```", ...steps("  "), "", "", "  ```"]
    const text = [...steps(""), "", ...block, "", ...steps("")].join("\n")
    const out = compressAggressive(text, new Set()).text
    expect(out).toContain(block.join("\n"))
    expect(out.split("\n").filter((line) => line.startsWith("[svc: "))).toHaveLength(2)
  })
})
