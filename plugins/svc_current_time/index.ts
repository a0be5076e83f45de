/**
 * svc_current_time: the current date and time in an IANA timezone (UTC by default), as ISO 8601 with
 * the zone's offset, plus Unix seconds. An unknown timezone is a tool error the model can correct.
 */
import { Clock, Effect, Schema } from "effect"
import { defineTool, ToolError } from "../../src/tools/SvcTool.ts"

const pad = (n: number, width = 2) => String(n).padStart(width, "0")

/** `2026-11-22T07:05:09+01:00` for `epochMs` seen in `timeZone`. */
export const isoInZone = (epochMs: number, timeZone: string): string => {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      timeZoneName: "longOffset"
    }).formatToParts(new Date(epochMs)).map((part) => [part.type, part.value])
  )
  // "GMT" alone means offset zero; otherwise "GMT+05:30"
  const offset = parts["timeZoneName"] === "GMT" ? "+00:00" : String(parts["timeZoneName"]).slice(3)
  const year = Number(parts["year"])
  return `${pad(year, 4)}-${parts["month"]}-${parts["day"]}T${parts["hour"]}:${parts["minute"]}:${
    parts["second"]
  }${offset}`
}

/**
 * CLDR ids (what Intl answers) that differ from IANA's canonical names: zones IANA renamed since.
 * Without this, `Asia/Kolkata` would come back as `Asia/Calcutta`.
 */
const IANA_NAME: Readonly<Record<string, string>> = {
  "Africa/Asmera": "Africa/Asmara",
  "America/Buenos_Aires": "America/Argentina/Buenos_Aires",
  "America/Catamarca": "America/Argentina/Catamarca",
  "America/Cordoba": "America/Argentina/Cordoba",
  "America/Godthab": "America/Nuuk",
  "America/Indianapolis": "America/Indiana/Indianapolis",
  "America/Jujuy": "America/Argentina/Jujuy",
  "America/Louisville": "America/Kentucky/Louisville",
  "America/Mendoza": "America/Argentina/Mendoza",
  "Asia/Calcutta": "Asia/Kolkata",
  "Asia/Katmandu": "Asia/Kathmandu",
  "Asia/Rangoon": "Asia/Yangon",
  "Asia/Saigon": "Asia/Ho_Chi_Minh",
  "Atlantic/Faeroe": "Atlantic/Faroe",
  "Europe/Kiev": "Europe/Kyiv",
  "Pacific/Enderbury": "Pacific/Kanton",
  "Pacific/Ponape": "Pacific/Pohnpei",
  "Pacific/Truk": "Pacific/Chuuk"
}

/** The zone's canonical IANA name (case fixed, links resolved), or undefined when it is unknown. */
const canonicalZone = (timeZone: string): string | undefined => {
  try {
    const cldr = new Intl.DateTimeFormat("en-US", { timeZone }).resolvedOptions().timeZone
    return IANA_NAME[cldr] ?? cldr
  } catch {
    return undefined
  }
}

export const CurrentTime = defineTool({
  id: "svc_current_time",
  description:
    "Returns the current date and time. Give an IANA timezone name (for example Europe/Paris or America/New_York) for local time; without one, UTC.",
  parameters: Schema.Struct({
    timezone: Schema.optionalKey(
      Schema.String.annotate({ description: "IANA timezone name, e.g. Europe/Paris. Default: UTC." })
    )
  }),
  timeout: "1 second",
  run: ({ timezone }) =>
    Effect.gen(function*() {
      const requested = timezone ?? "UTC"
      const zone = canonicalZone(requested)
      if (zone === undefined) {
        return yield* new ToolError({
          message: `Unknown timezone '${requested}'. Use an IANA name such as UTC, Europe/Paris or Asia/Tokyo.`
        })
      }
      const now = yield* Clock.currentTimeMillis
      return { datetime: isoInZone(now, zone), timezone: zone, unix: Math.floor(now / 1000) }
    })
})
