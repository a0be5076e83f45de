/**
 * `svc-gateway requests ...`: an organization's request log, newest first and filtered (`list`, paged
 * with the `--cursor` each page prints), and one request in full (`get`), prompt and completion text
 * included when the organization stores them (`orgs update --log-content true`).
 */
import { Console, Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import type { RequestLogEntry, RequestPage } from "../logs/RequestQueries.ts"
import { AdminClient } from "./AdminClient.ts"
import { json, withAdminClient } from "./Connection.ts"
import { org } from "./Flags.ts"
import { filterFlags, filterInput, ms, noRequests } from "./LogFlags.ts"
import type { RequestListInput } from "./LogQuery.ts"
import { fields, idList, printJson, table, time, yesNo } from "./Output.ts"

/** The model that answered, else the one asked for (a request refused before any provider answered). */
/** The model as the client addressed it (`local/echo`); the provider's own name is in `requests get`. */
const modelOf = (entry: RequestLogEntry): string => entry.requested_model ?? entry.model ?? "-"

/** The line that tells how to get the next page. */
export const nextPageHint = (cursor: string): string => `More requests: pass --cursor ${cursor} for the next page.`

export const formatRequests = (orgId: string, page: RequestPage, filtered: boolean): string => {
  if (page.data.length === 0) return noRequests(orgId, filtered)
  const rows = table(
    ["TIME", "ID", "MODEL", "KEY", "STATUS", "TAGS", "TOKENS", "LATENCY"],
    page.data.map((entry) => [
      time(entry.created_at),
      entry.id,
      modelOf(entry),
      entry.key_id ?? "-",
      String(entry.status),
      idList(entry.tags),
      String(entry.total_tokens),
      `${ms(entry.latency_ms)} ms`
    ])
  )
  return page.next_cursor === null ? rows : [rows, "", nextPageHint(page.next_cursor)].join("\n")
}

const optional = (value: string | null, suffix = ""): string => value === null ? "-" : `${value}${suffix}`

/** The level and what it saved: `safe, 1234 tokens saved (net 456)`; under shadow, what each level would have. */
export const compressionLine = (entry: RequestLogEntry): string => {
  if (entry.compression_level === null) return "-"
  if (entry.compression_level === "shadow") {
    return `shadow: safe would have saved ${entry.shadow_tokens_saved_safe ?? 0} tokens, aggressive ${
      entry.shadow_tokens_saved_aggressive ?? 0
    }`
  }
  if (entry.prompt_tokens_saved === null) return entry.compression_level
  return `${entry.compression_level}, ${entry.prompt_tokens_saved} tokens saved (net ${
    entry.prompt_tokens_saved_net ?? 0
  })`
}

export const NOT_STORED = (orgId: string) =>
  "Prompt and completion text were not stored for this request; to store them for new requests: " +
  `svc-gateway orgs update --org ${orgId} --log-content true`

export const formatRequest = (orgId: string, entry: RequestLogEntry): string => {
  const text = [
    ...(entry.prompt_text === undefined ? [] : ["", "Prompt:", entry.prompt_text]),
    ...(entry.completion_text === undefined ? [] : ["", "Completion:", entry.completion_text])
  ]
  return [
    `Request ${entry.id} of organization ${orgId}.`,
    fields([
      ["time", entry.created_at],
      ["key", optional(entry.key_id)],
      ["session", optional(entry.session_id)],
      ["requested model", optional(entry.requested_model)],
      ["upstream model", optional(entry.model)],
      ["provider", optional(entry.provider)],
      ["status", entry.error_code === null ? String(entry.status) : `${entry.status} (${entry.error_code})`],
      ["stream", yesNo(entry.stream)],
      ["tags", idList(entry.tags)],
      ["prompt tokens", `${entry.prompt_tokens} (cached ${entry.cached_tokens})`],
      ["completion tokens", `${entry.completion_tokens} (reasoning ${entry.reasoning_tokens})`],
      ["total tokens", String(entry.total_tokens)],
      ["shared tools", idList(entry.svc_tools)],
      ["attempts", String(entry.attempts)],
      ["latency", `${ms(entry.latency_ms)} ms`],
      ["first token", entry.ttft_ms === null ? "-" : `${ms(entry.ttft_ms)} ms`],
      ["compression", compressionLine(entry)],
      ["user agent", optional(entry.user_agent)]
    ]),
    ...(text.length === 0 ? ["", NOT_STORED(orgId)] : text)
  ].join("\n")
}

const list = Command.make(
  "list",
  {
    org,
    ...filterFlags,
    limit: Flag.Int("limit").pipe(
      Flag.withDescription("Requests per page, 1 to 200 (default 50)"),
      Flag.withMetavar("n"),
      Flag.optional
    ),
    cursor: Flag.String("cursor").pipe(
      Flag.withDescription("Continue where the previous page ended: the cursor it printed (next_cursor with --json)"),
      Flag.withMetavar("cursor"),
      Flag.optional
    ),
    json
  },
  Effect.fn("cli.requests.list")(function*(input) {
    const filter = filterInput(input)
    const query: RequestListInput = {
      ...filter,
      ...Option.match(input.limit, { onNone: () => ({}), onSome: (limit) => ({ limit }) }),
      ...Option.match(input.cursor, { onNone: () => ({}), onSome: (cursor) => ({ cursor }) })
    }
    const page = yield* (yield* AdminClient).listRequests(input.org, query)
    const filtered = Object.keys(filter).length > 0 || Option.isSome(input.cursor)
    yield* input.json ? printJson(page) : Console.log(formatRequests(input.org, page, filtered))
  })
).pipe(
  Command.withDescription("List an organization's requests, newest first, narrowed by the filters given"),
  Command.withAlias("ls"),
  Command.withExamples([
    { command: "svc-gateway requests list --org org_123 --status error --from 2026-03-01" },
    { command: "svc-gateway requests list --org org_123 --tag team:search --tag env=prod --tag-mode all --limit 20" },
    { command: "svc-gateway requests list --org org_123 --session <Claude Code session id>" },
    { command: "svc-gateway requests list --org org_123 --cursor <cursor from the previous page>" }
  ]),
  withAdminClient
)

const get = Command.make(
  "get",
  {
    org,
    request: Flag.String("request").pipe(
      Flag.withDescription("The request's id (its response's x-svc-request-id)"),
      Flag.withMetavar("request_id")
    ),
    json
  },
  Effect.fn("cli.requests.get")(function*(input) {
    const entry = yield* (yield* AdminClient).getRequest(input.org, input.request)
    yield* input.json ? printJson(entry) : Console.log(formatRequest(input.org, entry))
  })
).pipe(
  Command.withDescription("Show one request of an organization, with its prompt and completion text when stored"),
  Command.withExamples([{ command: "svc-gateway requests get --org org_123 --request req_456" }]),
  withAdminClient
)

export const RequestsCommand = Command.make("requests").pipe(
  Command.withDescription("The request log: every chat request of an organization, filtered and paged"),
  Command.withSubcommands([list, get])
)
