// Tests run on the pinned Node 24 (npm scripts put node_modules/.bin first). Timeouts are generous:
// two cores run every worker's gateways and fake upstreams at once.
//
// Two projects, one after the other: the console's browser suites run once every other suite is done.
// Run beside some seventy files of gateways on two cores, a page that answers in 100 ms idle took
// seconds, and the browser tests' waits (`expect.poll` gives up after 1 s by default) failed by chance:
// a request-log page polled while its rows were still loading, a tools page not rendered in 10 s. On a
// machine of their own the waits hold, and a poll waits as long as the page's own waits do.
import { defineConfig } from "vitest/config"

const browser = "test/browser/**/*.test.ts"
// the real coding clients run apart, in `npm run test:clients` (vitest.clients.config.ts)
const clients = "test/clients/**/*.test.ts"

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: "suites",
          include: ["test/**/*.test.ts", "plugins/**/*.test.ts"],
          exclude: [browser, clients],
          sequence: { groupOrder: 0 }
        }
      },
      {
        extends: true,
        test: {
          name: "browser",
          include: [browser],
          sequence: { groupOrder: 1 },
          // the same budget as each page's own waits (`page.setDefaultTimeout` in ConsoleBrowser.ts)
          expect: { poll: { timeout: 10_000 } }
        }
      }
    ]
  }
})
