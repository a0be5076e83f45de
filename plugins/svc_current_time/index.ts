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
  return `${pad(year, 4)}-${parts["month"]}-${parts["day"]}T${parts["hour"]}:${parts["minute"]}:${parts["second"]}${offset}`
}

const canonicalZone = (timeZone: string): string | undefined => {
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone }).resolvedOptions().timeZone
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
