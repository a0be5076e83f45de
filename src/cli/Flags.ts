/**
 * Flags several commands share, and the parsing of the values they take. Values are checked for their
 * form only, when the command line is parsed (a mistake there is a usage error, before any store is
 * opened); whether the ids exist is the admin API's check, made with its words.
 */
import { Config, Effect, Option } from "effect"
import { Flag } from "effect/cli"
import { isThreshold, MAX_THRESHOLDS } from "../kernel/AlertSettings.ts"
import { isDollarAmount, type LimitName, type LimitsChange } from "../kernel/Limits.ts"
import { AdminClientError } from "./AdminClientError.ts"

export const org = Flag.String("org").pipe(
  Flag.withDescription("The organization's id (org_...)"),
  Flag.withMetavar("org_id")
)

/** `--key`: a gateway API key (not the admin token), else `SVC_GATEWAY_KEY`; what it is for in `description`. */
export const gatewayKey = (description: string) =>
  Flag.Redacted("key").pipe(
    Flag.withDescription(`${description} (env: SVC_GATEWAY_KEY)`),
    Flag.withMetavar("key"),
    Flag.withFallbackConfig(Config.Redacted("SVC_GATEWAY_KEY")),
    Flag.optional
  )

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

/** A limit's value: a whole number above 0, or `none` (no limit of that kind). */
export const parseLimit = (value: string): Option.Option<number | null> => {
  if (value === "none") return Option.some(null)
  return /^[1-9]\d{0,15}$/.test(value) && Number.isSafeInteger(Number(value))
    ? Option.some(Number(value))
    : Option.none()
}

const limitFlag = (name: string, what: string) =>
  Flag.String(name).pipe(
    Flag.withDescription(`${what}: a whole number above 0, or none`),
    Flag.withMetavar("n|none"),
    Flag.filterMap(parseLimit, () => "a whole number above 0, or none"),
    Flag.optional
  )

/** A dollar limit's value: dollars above 0 to the micro-dollar (`20`, `0.5`), or `none`. */
export const parseDollars = (value: string): Option.Option<number | null> => {
  if (value === "none") return Option.some(null)
  const usd = Number(value)
  return /^\d{1,9}(\.\d{1,6})?$/.test(value) && isDollarAmount(usd) ? Option.some(usd) : Option.none()
}

const dollarFlag = (name: string, what: string) =>
  Flag.String(name).pipe(
    Flag.withDescription(`${what}: dollars above 0 (20, 0.5), or none`),
    Flag.withMetavar("usd|none"),
    Flag.filterMap(parseDollars, () => "dollars above 0, to at most 6 decimals (20, 0.5), or none"),
    Flag.optional
  )

/** `--rpm`, `--tpm`, `--tokens-per-day`, `--tokens-per-month`, `--usd-per-day`, `--usd-per-month`. */
export const limitFlags = {
  rpm: limitFlag("rpm", "Requests per minute"),
  tpm: limitFlag("tpm", "Tokens (prompt and completion) per minute"),
  tokensPerDay: limitFlag("tokens-per-day", "Tokens per UTC day"),
  tokensPerMonth: limitFlag("tokens-per-month", "Tokens per UTC calendar month"),
  usdPerDay: dollarFlag("usd-per-day", "Spend per UTC day"),
  usdPerMonth: dollarFlag("usd-per-month", "Spend per UTC calendar month")
}

type LimitFlagValues = { readonly [K in keyof typeof limitFlags]: Option.Option<number | null> }

const FLAG_LIMIT: { readonly [K in keyof typeof limitFlags]: LimitName } = {
  rpm: "rpm",
  tpm: "tpm",
  tokensPerDay: "tokens_per_day",
  tokensPerMonth: "tokens_per_month",
  usdPerDay: "usd_per_day",
  usdPerMonth: "usd_per_month"
}

/** The limits the flags change, or undefined when none was given. */
export const limitsChange = (flags: LimitFlagValues): LimitsChange | undefined => {
  const change: { -readonly [K in LimitName]?: number | null } = {}
  for (const flag of Object.keys(FLAG_LIMIT) as Array<keyof typeof limitFlags>) {
    const value = flags[flag]
    if (Option.isSome(value)) change[FLAG_LIMIT[flag]] = value.value
  }
  return Object.keys(change).length === 0 ? undefined : change
}

/** `0.5,0.8,1`: shares of a dollar budget, each above 0 and at most 1. */
export const parseThresholds = (value: string): Option.Option<ReadonlyArray<number>> => {
  const parts = value.split(",").map((part) => part.trim())
  const shares = parts.map(Number)
  return parts.length <= MAX_THRESHOLDS && parts.every((part) => /^\d+(\.\d+)?$/.test(part)) &&
      shares.every(isThreshold)
    ? Option.some(shares)
    : Option.none()
}

/** The `alerts` an org update sets from `--alert-webhook` and `--alert-thresholds`; undefined: unchanged. */
export const alertsChange = (flags: {
  readonly alertWebhook: Option.Option<string>
  readonly alertThresholds: Option.Option<ReadonlyArray<number>>
}): Effect.Effect<
  { readonly webhook_url: string; readonly thresholds?: ReadonlyArray<number> } | null | undefined,
  AdminClientError
> => {
  if (Option.isNone(flags.alertWebhook)) {
    return Option.isSome(flags.alertThresholds)
      ? Effect.fail(
        AdminClientError.invalidInput("--alert-thresholds needs --alert-webhook too: the URL the alerts are posted to.")
      )
      : Effect.succeed(undefined)
  }
  if (flags.alertWebhook.value === "none") return Effect.succeed(null)
  return Effect.succeed({
    webhook_url: flags.alertWebhook.value,
    ...(Option.isSome(flags.alertThresholds) ? { thresholds: flags.alertThresholds.value } : {})
  })
}
