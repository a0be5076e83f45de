// Tests run on the pinned Node 24 (npm scripts put node_modules/.bin first). PGlite boots in a few
// seconds per worker, hence the generous timeouts.
import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "plugins/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000
  }
})
