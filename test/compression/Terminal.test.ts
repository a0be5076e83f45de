/** Terminal output rendered to its final screen, and what is left alone. */
import { describe, expect, it } from "vitest"
import { looksLikeTerminal, renderTerminal } from "../../src/compression/Terminal.ts"

const ESC = "\u001b"

describe("renderTerminal", () => {
  it("leaves text that is not terminal output alone, CRLF line ends included", () => {
    expect(renderTerminal("plain\nlines\n")).toBeUndefined()
    expect(renderTerminal("windows\r\nline ends\r\n")).toBeUndefined()
    expect(looksLikeTerminal("a\r\nb")).toBe(false)
    expect(looksLikeTerminal("a\rb")).toBe(true)
  })

  it("drops colour and style sequences, keeping the text", () => {
    expect(renderTerminal(`${ESC}[1m${ESC}[31mFAIL${ESC}[39m${ESC}[22m test/a.test.ts ${ESC}[2m(3 tests)${ESC}[0m`))
      .toBe("FAIL test/a.test.ts (3 tests)")
  })

  it("collapses carriage-return redraws to what the line shows last", () => {
    expect(renderTerminal("[=   ] 10%\r[==  ] 50%\r[====] 100%\ndone")).toBe("[====] 100%\ndone")
    // a shorter redraw leaves the end of the longer line, as a terminal does
    expect(renderTerminal("downloading 12345\rok")).toBe("okwnloading 12345")
    expect(renderTerminal(`downloading 12345\r${ESC}[Kok`)).toBe("ok")
  })

  it("replays cursor-up and erase-line redraws (docker, npm)", () => {
    const docker = [
      "layer a: Downloading 10%",
      "layer b: Waiting",
      `${ESC}[2A${ESC}[2K\rlayer a: Downloading 60%\n${ESC}[2K\rlayer b: Downloading 5%`,
      `${ESC}[2A${ESC}[2K\rlayer a: Pull complete\n${ESC}[2K\rlayer b: Pull complete`
    ].join("\n")
    // the cursor ends on the line below the redraw, as it was before it: that line stays, empty
    expect(renderTerminal(docker)).toBe("layer a: Pull complete\nlayer b: Pull complete\n")
    expect(renderTerminal(`⠋ installing${ESC}[1G${ESC}[0K⠙ installing${ESC}[1G${ESC}[0Kadded 3 packages`)).toBe(
      "added 3 packages"
    )
  })

  it("writes each run where the cursor is, whichever special character ends it", () => {
    // a backspace, then a run over what the line holds
    expect(renderTerminal("abc\bX\rY")).toBe("YbX")
    // a run after a move left goes over the line; one after a move right past its end pads it
    expect(renderTerminal(`abc${ESC}[1DX`)).toBe("abX")
    expect(renderTerminal(`abc${ESC}[1CX`)).toBe("abc X")
    // the same special found again after the cursor passed it
    expect(renderTerminal(`${ESC}[1ma${ESC}[0mb${ESC}[1mc\n\nd\re`)).toBe("abc\n\ne")
  })

  it("drops OSC titles and hyperlink wrappers, keeping the link text", () => {
    expect(renderTerminal(`${ESC}]0;title\u0007${ESC}]8;;https://x.test${ESC}\\docs${ESC}]8;;${ESC}\\ here`)).toBe(
      "docs here"
    )
  })

  it("gives up on sequences whose effect is not certain", () => {
    expect(renderTerminal(`a${ESC}[10;5Hb`)).toBeUndefined() // absolute position
    expect(renderTerminal(`a${ESC}[2Jb`)).toBeUndefined() // clear screen
    expect(renderTerminal(`a${ESC}[?1049hb`)).toBeUndefined() // alternate screen
    expect(renderTerminal(`a${ESC}[31`)).toBeUndefined() // cut short
  })

  it("is idempotent: a rendered screen is no longer terminal output", () => {
    const once = renderTerminal(`${ESC}[32mok${ESC}[0m\r\nnext\rNEXT`)!
    expect(once).toBe("ok\nNEXT")
    expect(renderTerminal(once)).toBeUndefined()
  })
})
