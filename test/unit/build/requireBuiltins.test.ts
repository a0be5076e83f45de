import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { describe, expect, it } from "vitest"
import { requireBuiltins } from "../../../src/build/requireBuiltins.ts"

describe("requireBuiltins", () => {
  it("turns each form of a built-in import into a require, after one createRequire", () => {
    const code = [
      `import { createRequire } from "node:module";`,
      `import * as OS from "node:os";`,
      `import { Duplex, PassThrough } from "node:stream";`,
      `import { Buffer as Buffer$1, constants } from "node:buffer";`,
      `import Http from "node:http";`,
      `import { pipeline as pipeline$1 } from "node:stream/promises";`,
      `var x = OS.platform();`
    ].join("\n")
    expect(requireBuiltins(code).split("\n")).toEqual([
      `import { createRequire as __createRequireBuiltin } from "node:module";`,
      `const __requireBuiltin = __createRequireBuiltin(import.meta.url);`,
      `import { createRequire } from "node:module";`,
      `const OS = __requireBuiltin("node:os");`,
      `const { Duplex, PassThrough } = __requireBuiltin("node:stream");`,
      `const { Buffer: Buffer$1, constants } = __requireBuiltin("node:buffer");`,
      `const Http = __requireBuiltin("node:http");`,
      `const { pipeline: pipeline$1 } = __requireBuiltin("node:stream/promises");`,
      `var x = OS.platform();`
    ])
  })

  it("leaves alone what is not a one-line import of a built-in", () => {
    const code = [
      `import { encode } from "gpt-tokenizer";`,
      `const s = 'import * as OS from "node:os";';`,
      `  import * as OS from "node:os";`,
      `import {`,
      `  a } from "node:fs";`
    ].join("\n")
    expect(requireBuiltins(code)).toBe(code)
  })

  it("gives code that runs: the bindings are the built-ins themselves", async () => {
    const code = requireBuiltins([
      `import * as Path from "node:path";`,
      `import { join as joinPath } from "node:path";`,
      `export const result = [Path.sep, joinPath("a", "b")];`
    ].join("\n"))
    const dir = mkdtempSync(join(tmpdir(), "require-builtins-"))
    try {
      const file = join(dir, "bundle.mjs")
      writeFileSync(file, code)
      const module = await import(pathToFileURL(file).href) as { result: Array<string> }
      expect(module.result).toEqual(["/", "a/b"])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
