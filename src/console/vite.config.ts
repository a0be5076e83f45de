/**
 * Builds the console (src/console/web) into dist/console: `npm run build`, which `npm start` and
 * `npm test` run first. Preact's JSX is compiled by Vite's own transformer; no plugin is needed.
 */
import { fileURLToPath } from "node:url"
import { defineConfig } from "vite"

export default defineConfig({
  root: fileURLToPath(new URL("./web", import.meta.url)),
  base: "/console/",
  logLevel: "warn",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: fileURLToPath(new URL("../../dist/console", import.meta.url)),
    emptyOutDir: true,
    target: "es2022",
    // the gateway serves the files itself with its own security policy; nothing is inlined into the page
    assetsInlineLimit: 0
  }
})
