/**
 * The `svc-gateway` command line: `npx svc-gateway <command>` (through bin/svc-gateway.mjs) or
 * `npm run cli -- <command>`. Settings come from the environment, like the server's.
 */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Effect } from "effect"
import { runCli } from "./Cli.ts"
import { LocalStore } from "./Connection.ts"

const program = Effect.gen(function*() {
  const code = yield* runCli(process.argv.slice(2))
  // set, not exit: pending output on stdout/stderr is flushed before the process ends
  process.exitCode = code
}).pipe(Effect.provide([NodeServices.layer, LocalStore.layerFromEnv]))

NodeRuntime.runMain(program)
