/**
 * `svc-gateway statusline`: the current session's cost and savings in one line, for Claude Code's
 * `statusLine` setting (`svc-gateway launch claude` sets it). Claude Code runs it after each turn with
 * the session as JSON on stdin (`{"session_id": ...}`); the line comes from the gateway's
 * `GET /v1/svc/sessions/{id}` with the session's own key (`SVC_GATEWAY_KEY`, which the launcher puts in
 * Claude Code's environment). A status line must never get in the way: whatever fails, it prints a
 * short line saying so and exits 0, within about two seconds.
 */
import { Config, Console, Effect, Option, Redacted } from "effect"
import { Command, Flag } from "effect/cli"
import type { SessionSummary } from "../admin/AdminResources.ts"
import { gatewayUrl, root } from "./Connection.ts"
import { gatewayKey } from "./Flags.ts"

const FETCH_TIMEOUT_MS = 2_000
const STDIN_TIMEOUT_MS = 1_000

const dollars = (usd: number) => `$${usd < 1 ? usd.toFixed(4) : usd.toFixed(2)}`

/** The line for a session's sums. */
export const statusLine = (
  session: Pick<
    SessionSummary,
    "cost_usd" | "unpriced_requests" | "requests" | "errors" | "cache_hit_rate" | "compression_saved_usd"
  >
): string => {
  const requests = `${session.requests} request${session.requests === 1 ? "" : "s"}`
  return [
    "svc-gateway",
    `${dollars(session.cost_usd)}${session.unpriced_requests > 0 ? ` (+${session.unpriced_requests} unpriced)` : ""}`,
    requests,
    `${Math.round(session.cache_hit_rate * 100)}% cached`,
    ...(session.compression_saved_usd === 0 ? [] : [`saved ${dollars(session.compression_saved_usd)}`]),
    ...(session.errors === 0 ? [] : [`${session.errors} error${session.errors === 1 ? "" : "s"}`])
  ].join(" · ")
}

/** Claude Code's status JSON on stdin, read until it ends (never from a terminal, never for long). */
const readStdin = (): Promise<string> =>
  new Promise((resolve) => {
    if (process.stdin.isTTY) return resolve("")
    let text = ""
    const done = () => {
      clearTimeout(timer)
      process.stdin.pause()
      resolve(text)
    }
    const timer = setTimeout(done, STDIN_TIMEOUT_MS)
    process.stdin.setEncoding("utf8")
    process.stdin.on("data", (part: string) => (text += part))
    process.stdin.on("end", done)
    process.stdin.on("error", done)
  })

const sessionFromStdin = (text: string): string | undefined => {
  try {
    const parsed = JSON.parse(text) as { readonly session_id?: unknown }
    return typeof parsed.session_id === "string" && parsed.session_id !== "" ? parsed.session_id : undefined
  } catch {
    return undefined
  }
}

/** The line for `session` at `url` with `key`: the sums, or what stood in the way. */
export const lineFor = async (url: string, key: string, session: string): Promise<string> => {
  try {
    const response = await fetch(`${url}/v1/svc/sessions/${encodeURIComponent(session)}`, {
      headers: { authorization: `Bearer ${key}` },
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS)
    })
    if (response.status === 404) return "svc-gateway · no request logged yet"
    if (response.status === 401) return "svc-gateway · key refused"
    if (!response.ok) return `svc-gateway · status ${response.status}`
    return statusLine(await response.json() as SessionSummary)
  } catch {
    return `svc-gateway · unreachable at ${url}`
  }
}

export const StatuslineCommand = Command.make(
  "statusline",
  {
    session: Flag.String("session").pipe(
      Flag.withDescription("The session's id; else the session_id of the JSON on stdin (Claude Code's)"),
      Flag.withMetavar("session_id"),
      Flag.optional
    ),
    key: gatewayKey("The gateway API key that made the session")
  },
  Effect.fn("cli.statusline")(function*(input) {
    const flags = yield* root
    const launched = yield* Config.String("SVC_GATEWAY_URL").pipe(Config.option, Effect.orElseSucceed(Option.none))
    const url = yield* gatewayUrl(Option.orElse(flags.url, () => launched))
    const session = Option.isSome(input.session)
      ? input.session.value
      : sessionFromStdin(yield* Effect.promise(readStdin))
    if (session === undefined) return yield* Console.log("svc-gateway · no session")
    const key = Option.getOrUndefined(input.key)
    if (key === undefined) return yield* Console.log("svc-gateway · no key (SVC_GATEWAY_KEY)")
    yield* Console.log(yield* Effect.promise(() => lineFor(url, Redacted.value(key), session)))
  })
).pipe(
  Command.withDescription(
    "Print the current session's cost and savings in one line, for Claude Code's statusLine (launch sets it)"
  )
)
