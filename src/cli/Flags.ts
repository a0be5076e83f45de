/**
 * Flags several commands share, and the parsing of the values they take. Values are checked for their
 * form only, when the command line is parsed (a mistake there is a usage error, before any store is
 * opened); whether the ids exist is the admin API's check, made with its words.
 */
import { Option } from "effect"
import { Flag } from "effect/cli"

export const org = Flag.String("org").pipe(Flag.withDescription("The organization's id (org_...)"), Flag.withMetavar("org_id"))

/** `a,b` → `["a", "b"]` (spaces around ids ignored); none when no id is given at all. */
export const splitIds = (value: string): Option.Option<ReadonlyArray<string>> => {
  const ids = value.split(",").map((id) => id.trim()).filter((id) => id !== "")
  return ids.length === 0 ? Option.none() : Option.some(ids)
}

/** A flag that takes `true` or `false`, spelled out. */
export const trueOrFalse = (name: string) =>
  Flag.ChoiceWithValue(name, [["true", true], ["false", false]] as const).pipe(Flag.withMetavar("true|false"))

/** `--expires-at <date_time>|never`: the ISO 8601 text as typed (checked like `expires_at`), `never` as null. */
export const expiresAt = Flag.String("expires-at").pipe(
  Flag.withDescription(
    "When the key stops working: an ISO 8601 date-time such as 2030-01-31T00:00:00Z, or never"
  ),
  Flag.withMetavar("date_time"),
  Flag.map((value): string | null => (value === "never" ? null : value)),
  Flag.optional
)

/** `all` (null), `none` (no tool) or a comma list: the key's `allowed_svc_tool_ids`. */
export const parseAllowedTools = (value: string): Option.Option<ReadonlyArray<string> | null> => {
  if (value === "all") return Option.some(null)
  if (value === "none") return Option.some([])
  return splitIds(value)
}

export const allowedTools = Flag.String("allowed-tools").pipe(
  Flag.withDescription(
    "The shared tools the key may use: tool ids separated by commas (svc_a,svc_b), all (every tool " +
      "activated for the organization) or none"
  ),
  Flag.withMetavar("tool_ids"),
  Flag.filterMap(parseAllowedTools, () => "tool ids separated by commas (svc_a,svc_b), all or none"),
  Flag.optional
)

/** `none` (no key) or a comma list: the keys a tool is hydrated for. */
export const parseKeyIds = (value: string): Option.Option<ReadonlyArray<string>> =>
  value === "none" ? Option.some([]) : splitIds(value)

export const hydrateKeys = Flag.String("hydrate-keys").pipe(
  Flag.withDescription(
    "Inject the tool for these API keys of the organization without them listing it: key ids separated by " +
      "commas (key_a,key_b), or none; left out, the current keys stay"
  ),
  Flag.withMetavar("key_ids"),
  Flag.filterMap(parseKeyIds, () => "key ids separated by commas (key_a,key_b), or none"),
  Flag.optional
)
