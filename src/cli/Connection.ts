/**
 * How a command reaches the data: the root command's shared `--url` / `--admin-token` flags (or
 * GATEWAY_URL / GATEWAY_ADMIN_TOKEN) pick the running gateway's admin API; without them the command
 * opens the local store. Commands only ask for `AdminClient`; `withAdminClient` wires it from the flags,
 * and builds it only when a command actually runs (help and usage errors never open the store).
 */
import { Config, Context, Effect, Layer, Option, type Redacted } from "effect"
import { Command, Flag } from "effect/cli"
import { FetchHttpClient } from "effect/http"
import { GatewayConfig } from "../Config.ts"
import { AdminClient } from "./AdminClient.ts"
import { AdminClientError } from "./AdminClientError.ts"
import { normalizeBaseUrl } from "./AdminHttp.ts"

export const CLI_NAME = "svc-gateway"

const url = Flag.String("url").pipe(
  Flag.withDescription("Go through the running gateway's admin API at this base URL (env: GATEWAY_URL)"),
  Flag.withMetavar("base_url"),
  Flag.withFallbackConfig(Config.String("GATEWAY_URL")),
  Flag.optional
)

const adminToken = Flag.Redacted("admin-token").pipe(
  Flag.withDescription(
    "The gateway's admin token, with --url (env: GATEWAY_ADMIN_TOKEN; prefer it, as other users can see flags)"
  ),
  Flag.withMetavar("token"),
  Flag.withFallbackConfig(Config.Redacted("GATEWAY_ADMIN_TOKEN")),
  Flag.optional
)

/** `--json` on every command: print exactly what the admin API answers, nothing else on stdout. */
export const json = Flag.Boolean("json").pipe(
  Flag.withDescription("Print the admin API's JSON instead of text"),
  Flag.withDefault(false)
)

/** The root command; subcommands read its flags by yielding it. */
export const root = Command.make(CLI_NAME).pipe(
  Command.withSharedFlags({ url, adminToken }),
  Command.withDescription(
    "Administer svc-gateway: organizations, API keys, shared tools, the request log and analytics. Works on the " +
      "local store (DATABASE_URL or GATEWAY_DATA_DIR, default ./.data), or with --url through a running gateway's " +
      "admin API."
  )
)

/**
 * The local store the commands use without `--url`, as a layer to build per run. `layerFromEnv` opens
 * the store the environment names; tests provide a layer over a store they keep across runs.
 */
export class LocalStore extends Context.Service<LocalStore, Layer.Layer<AdminClient, AdminClientError>>()(
  "svc-gateway/cli/LocalStore"
) {
  static readonly layerFromEnv = Layer.succeed(LocalStore, AdminClient.layerStoreWith(GatewayConfig.layer))
}

/** `--url` (or GATEWAY_URL) as a base URL, or the usage error that names it. */
const baseUrlOf = (given: string) => {
  const base = normalizeBaseUrl(given)
  return base === undefined
    ? Effect.fail(
      AdminClientError.invalidInput(
        `Invalid --url (or GATEWAY_URL) '${given}': expected an http(s) URL such as http://127.0.0.1:8080.`
      )
    )
    : Effect.succeed(base)
}

/** The gateway `url` names (the root's `--url`), else this machine's on `PORT` (8080). */
export const gatewayUrl = (url: Option.Option<string>) =>
  Effect.flatMap(
    Config.Port("PORT").pipe(
      Config.withDefault(8080),
      Effect.mapError((error) => AdminClientError.invalidInput(`PORT: ${error.message}`))
    ),
    (port) => baseUrlOf(Option.getOrElse(url, () => `http://127.0.0.1:${port}`))
  )

const httpClient = (baseUrl: string, token: Option.Option<Redacted.Redacted<string>>) =>
  Effect.flatMap(baseUrlOf(baseUrl), (base) => {
    if (Option.isNone(token)) {
      return Effect.fail(
        AdminClientError.invalidInput(
          "--url needs the admin token: pass --admin-token <token> or set GATEWAY_ADMIN_TOKEN."
        )
      )
    }
    return Effect.succeed(
      AdminClient.layerHttp({ url: base, adminToken: token.value }).pipe(Layer.provide(FetchHttpClient.layer))
    )
  })

/**
 * The `AdminClient` the root flags ask for. A handler that must refuse some input before the store is
 * opened (`keys update` with nothing to change) provides it itself, after its check.
 */
export const AdminClientFromFlags = Layer.unwrap(Effect.gen(function*() {
  const flags = yield* root
  if (Option.isNone(flags.url)) return yield* LocalStore
  return yield* httpClient(flags.url.value, flags.adminToken)
}))

/** Gives a leaf command its `AdminClient`; apply it to every command that calls the admin operations. */
export const withAdminClient = <const Name extends string, Input, ContextInput, E, R>(
  command: Command.Command<Name, Input, ContextInput, E, R>
) => Command.provide(command, AdminClientFromFlags)
