/**
 * First start: with an empty store, create a `default` organization and a `dev` key and print the key,
 * so a new user can send a request at once. Later starts find an organization and do nothing.
 */
import { Console, Effect } from "effect"
import { GatewayConfig } from "./Config.ts"
import { ApiKeys } from "./keys/ApiKeys.ts"
import { Orgs } from "./orgs/Orgs.ts"

export const bootstrap = Effect.gen(function*() {
  const config = yield* GatewayConfig
  const orgs = yield* Orgs
  if (!config.bootstrap || (yield* orgs.count) > 0) return
  const org = yield* orgs.create("default")
  const key = yield* (yield* ApiKeys).create(org.id, { name: "dev", expiresAt: null, allowedSvcToolIds: null })
  const host = config.host === "0.0.0.0" ? "127.0.0.1" : config.host
  yield* Console.log([
    `Created organization 'default' (${org.id}) and its API key 'dev' (shown once, keep it):`,
    `  ${key.key}`,
    `Try it:`,
    `  curl http://${host}:${config.port}/v1/chat/completions -H "Authorization: Bearer ${key.key}" \\`,
    `    -d '{"model":"local/echo","messages":[{"role":"user","content":"Hello"}]}'`
  ].join("\n"))
}).pipe(Effect.withSpan("Bootstrap"))
