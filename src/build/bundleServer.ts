/**
 * Bundles the server into one file, `dist/main.js`, which `npm start` runs (`npm run build` writes it).
 * The sources run as they are too (`node src/main.ts`, and every test does); the bundle exists for
 * memory: loading Effect's and the platform's modules one file each keeps their full text and JSDoc in
 * the heap, about 70 MiB, where the bundle holds only the code the gateway reaches, without comments.
 * Not minified, so stack traces stay readable. gpt-tokenizer stays outside, loaded only when something
 * is counted: its token table is megabytes of source that a bundle would hold from the start. So does
 * the price catalogue (`@pydantic/genai-prices`, about 12 MiB resident), loaded at start only when a
 * provider other than `local` is configured (`prices/Prices.ts`), and so do the MCP SDK and
 * openid-client, loaded with the first MCP server or single sign-on that needs them (about 20 MiB
 * resident that a gateway without them would carry). Node's built-ins are required, not imported
 * (`requireBuiltins.ts`).
 */
import { build } from "rolldown"
import { requireBuiltins } from "./requireBuiltins.ts"

export const bundleServer = async (file: string): Promise<void> => {
  await build({
    input: new URL("../main.ts", import.meta.url).pathname,
    platform: "node",
    external: [/^gpt-tokenizer/, /^@pydantic\/genai-prices/, /^@modelcontextprotocol\/sdk/, /^openid-client/, /^node:/],
    // ASCII only: one non-ASCII character anywhere makes V8 hold the whole source as UTF-16, twice its size
    output: { file, format: "esm", minify: "dce-only", comments: false, codeSplitting: false, charset: "ascii" },
    logLevel: "warn",
    plugins: [{ name: "require-builtins", renderChunk: (code) => requireBuiltins(code) }]
  })
}

if (import.meta.main) await bundleServer(new URL("../../dist/main.js", import.meta.url).pathname)
