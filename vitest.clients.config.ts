// `npm run test:clients`: the real coding clients against the gateway (test/clients). Apart from
// `npm test` because the first run installs a pinned client from npm into a cache outside the repo.
import { defineConfig } from "vitest/config"

export default defineConfig({
  test: { include: ["test/clients/**/*.test.ts"], testTimeout: 180_000, hookTimeout: 360_000, fileParallelism: false }
})
