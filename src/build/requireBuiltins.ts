/**
 * Node's built-in modules loaded with `require` rather than `import`, in the bundle's text. Importing a
 * built-in from an ES module builds its ES namespace, which reads every one of its exports, and some are
 * lazy: importing `node:http` alone loads http2, tls, zlib, worker_threads, the web streams and Node's own
 * undici (13.5 MiB more resident than requiring it, in a bare process). The gateway needs none of them.
 * `require` returns the module object and reads nothing. Only whole one-line import statements of
 * `node:` modules are rewritten, which is how rolldown prints them; anything else is left as it is.
 */
const IMPORT = /^import (?:\* as ([\w$]+)|\{([^}]*)\}|([\w$]+)) from "(node:[\w/]+)";$/

/** `{ a, b as c }` as a destructuring pattern: `{ a, b: c }`. */
const pattern = (names: string): string =>
  `{ ${
    names.split(",").map((name) => name.trim()).filter((name) => name !== "").map((name) =>
      name.replace(/\s+as\s+/, ": ")
    ).join(", ")
  } }`

export const requireBuiltins = (code: string): string => {
  let rewritten = false
  const lines = code.split("\n").map((line) => {
    const match = IMPORT.exec(line)
    if (match === null) return line
    const [, namespace, named, defaulted, module] = match
    if (module === "node:module") return line
    rewritten = true
    const binding = named === undefined ? (namespace ?? defaulted) : pattern(named)
    return `const ${binding} = __requireBuiltin("${module}");`
  })
  if (!rewritten) return code
  return [
    `import { createRequire as __createRequireBuiltin } from "node:module";`,
    `const __requireBuiltin = __createRequireBuiltin(import.meta.url);`,
    ...lines
  ].join("\n")
}
