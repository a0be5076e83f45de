/**
 * svc_current_time run alone, as the gateway runs it (JSON arguments, decoded by the tool's schema), on
 * a fixed TestClock: UTC by default, offsets of IANA zones in summer and winter, the canonical zone
 * name, Unix seconds, and the tool errors a model can act on.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { TestClock } from "effect/testing"
import { runTool } from "../../src/tools/runTool.ts"
import { CurrentTime } from "./index.ts"

const Answer = Schema.Struct({ datetime: Schema.String, timezone: Schema.String, unix: Schema.Number })

/** Runs the tool at `iso` (a UTC instant) with `args`, and decodes its answer. */
const at = (iso: string, args: unknown) =>
  Effect.gen(function*() {
    yield* TestClock.setTime(Date.parse(iso))
    const answer = yield* runTool(CurrentTime, args)
    return yield* Schema.decodeUnknownEffect(Answer)(answer)
  })

const errorAt = (iso: string, args: unknown) =>
  Effect.gen(function*() {
    yield* TestClock.setTime(Date.parse(iso))
    return yield* Effect.flip(runTool(CurrentTime, args))
  })

describe("svc_current_time", () => {
  it.effect("defaults to UTC, with +00:00 and the Unix seconds of the clock", () =>
    Effect.gen(function*() {
      const answer = yield* at("2026-03-04T05:06:07.890Z", {})
      assert.deepStrictEqual(answer, {
        datetime: "2026-03-04T05:06:07+00:00",
        timezone: "UTC",
        unix: Math.floor(Date.parse("2026-03-04T05:06:07.890Z") / 1000)
      })
    }))

  it.effect("empty arguments (\"\") are the same as {}", () =>
    Effect.gen(function*() {
      const answer = yield* at("2026-03-04T05:06:07Z", "")
      assert.strictEqual(answer.timezone, "UTC")
      assert.strictEqual(answer.datetime, "2026-03-04T05:06:07+00:00")
    }))

  const offsets: ReadonlyArray<readonly [zone: string, instant: string, datetime: string]> = [
    ["Europe/Paris", "2026-07-15T12:00:00Z", "2026-07-15T14:00:00+02:00"],
    ["Europe/Paris", "2026-01-15T12:00:00Z", "2026-01-15T13:00:00+01:00"],
    ["Asia/Kolkata", "2026-01-15T12:00:00Z", "2026-01-15T17:30:00+05:30"],
    ["UTC", "2026-07-15T12:00:00Z", "2026-07-15T12:00:00+00:00"],
    ["America/New_York", "2026-01-15T12:00:00Z", "2026-01-15T07:00:00-05:00"],
    ["America/New_York", "2026-07-15T12:00:00Z", "2026-07-15T08:00:00-04:00"],
    ["America/St_Johns", "2026-01-15T12:00:00Z", "2026-01-15T08:30:00-03:30"],
    ["Pacific/Kiritimati", "2026-01-15T12:00:00Z", "2026-01-16T02:00:00+14:00"],
    // midnight is hour 00 of the next day, never "24"
    ["Europe/Paris", "2026-01-15T23:00:00Z", "2026-01-16T00:00:00+01:00"],
    // the day rolls over with the offset
    ["Asia/Kolkata", "2026-12-31T20:00:00Z", "2027-01-01T01:30:00+05:30"]
  ]
  for (const [zone, instant, datetime] of offsets) {
    it.effect(`${zone} at ${instant} is ${datetime}`, () =>
      Effect.gen(function*() {
        const answer = yield* at(instant, { timezone: zone })
        assert.strictEqual(answer.datetime, datetime)
        // the local time and its offset name the same instant as the Unix seconds
        assert.strictEqual(Date.parse(answer.datetime), answer.unix * 1000)
        assert.strictEqual(answer.unix, Date.parse(instant) / 1000)
      }))
  }

  it.effect("Unix seconds are the clock's milliseconds rounded down, in every zone", () =>
    Effect.gen(function*() {
      const instant = "2026-05-01T10:20:30.999Z"
      const inUtc = yield* at(instant, {})
      const inTokyo = yield* at(instant, { timezone: "Asia/Tokyo" })
      assert.strictEqual(inUtc.unix, Math.floor(Date.parse(instant) / 1000))
      assert.strictEqual(inTokyo.unix, inUtc.unix)
      assert.strictEqual(inTokyo.datetime, "2026-05-01T19:20:30+09:00")
    }))

  it.effect("canonicalises the zone name it was given: case, and links to their zone", () =>
    Effect.gen(function*() {
      const names: ReadonlyArray<readonly [given: string, canonical: string]> = [
        ["europe/paris", "Europe/Paris"],
        ["utc", "UTC"],
        ["Etc/UTC", "UTC"],
        ["GMT", "UTC"],
        ["US/Eastern", "America/New_York"]
      ]
      for (const [given, canonical] of names) {
        assert.strictEqual((yield* at("2026-01-15T12:00:00Z", { timezone: given })).timezone, canonical, given)
      }
    }))

  // Intl's resolvedOptions() answers CLDR's ids, which keep the old names of renamed zones
  // (Asia/Calcutta, Europe/Kiev, Asia/Saigon): the model would be told a name other than the one it
  // asked for, and one IANA deprecated. The canonical IANA name must come back as given.
  it.effect("a canonical IANA name comes back unchanged, renamed zones included", () =>
    Effect.gen(function*() {
      for (const zone of ["Europe/Paris", "America/New_York", "Asia/Kolkata", "Europe/Kyiv", "Asia/Ho_Chi_Minh"]) {
        assert.strictEqual((yield* at("2026-01-15T12:00:00Z", { timezone: zone })).timezone, zone, zone)
      }
      const lower = yield* at("2026-01-15T12:00:00Z", { timezone: "asia/kolkata" })
      assert.strictEqual(lower.timezone, "Asia/Kolkata")
      assert.strictEqual(lower.datetime, "2026-01-15T17:30:00+05:30")
    }))

  it.effect("an unknown timezone is a ToolError that names it and shows valid names", () =>
    Effect.gen(function*() {
      const error = yield* errorAt("2026-01-15T12:00:00Z", { timezone: "Mars/Olympus_Mons" })
      assert.strictEqual(error._tag, "ToolError")
      assert.include(error.message, "'Mars/Olympus_Mons'")
      assert.include(error.message, "IANA")
      assert.include(error.message, "Europe/Paris")
    }))

  it.effect("an empty timezone string is refused as unknown", () =>
    Effect.gen(function*() {
      const error = yield* errorAt("2026-01-15T12:00:00Z", { timezone: "" })
      assert.strictEqual(error._tag, "ToolError")
      assert.include(error.message, "Unknown timezone")
    }))

  it.effect("a non-string timezone is a ToolError naming the field", () =>
    Effect.gen(function*() {
      for (const timezone of [5, null, ["UTC"], { name: "UTC" }]) {
        const error = yield* errorAt("2026-01-15T12:00:00Z", { timezone })
        assert.strictEqual(error._tag, "ToolError")
        assert.include(error.message, "Invalid arguments")
        assert.include(error.message, "timezone")
      }
    }))

  it.effect("arguments that are not JSON, or not an object, are ToolErrors", () =>
    Effect.gen(function*() {
      const notJson = yield* errorAt("2026-01-15T12:00:00Z", "{timezone: UTC")
      assert.strictEqual(notJson._tag, "ToolError")
      assert.include(notJson.message, "not valid JSON")
      for (const args of ["42", "\"UTC\"", "null", "[]"]) {
        const error = yield* errorAt("2026-01-15T12:00:00Z", args)
        assert.strictEqual(error._tag, "ToolError", args)
        assert.include(error.message, "Invalid arguments", args)
      }
    }))

  it.effect("unknown extra keys are ignored (decoding is not strict about excess keys)", () =>
    Effect.gen(function*() {
      const answer = yield* at("2026-01-15T12:00:00Z", { timezone: "Europe/Paris", format: "rfc2822" })
      assert.strictEqual(answer.datetime, "2026-01-15T13:00:00+01:00")
    }))

  it("offers a closed object schema with one optional string parameter", () => {
    assert.strictEqual(CurrentTime.id, "svc_current_time")
    assert.deepStrictEqual(CurrentTime.jsonSchema, {
      type: "object",
      properties: {
        timezone: { type: "string", description: "IANA timezone name, e.g. Europe/Paris. Default: UTC." }
      },
      additionalProperties: false
    })
  })
})
