/**
 * Checks of admin input shared by the admin API and the CLI, so both refuse the same things in the same
 * words.
 */
import { Effect, Schema } from "effect"
import { RequestError } from "../http/RequestError.ts"

/** A display name: trimmed, 1 to 200 characters. */
export const Name = Schema.String.check(
  Schema.isTrimmed({ message: "Expected no leading or trailing spaces" }),
  Schema.isMinLength(1, { message: "Expected a non-empty name" }),
  Schema.isMaxLength(200, { message: "Expected at most 200 characters" })
)

/** `expires_at` as a Date: an ISO 8601 date-time in the future, or null for a key that never expires. */
export const parseExpiry = (value: string | null | undefined): Effect.Effect<Date | null, RequestError> => {
  if (value === null || value === undefined) return Effect.succeed(null)
  const date = new Date(value)
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(date.getTime())) {
    return Effect.fail(RequestError.invalidField("expires_at", "Invalid value for 'expires_at': expected an ISO 8601 date-time such as 2030-01-31T00:00:00Z."))
  }
  if (date.getTime() <= Date.now()) {
    return Effect.fail(RequestError.invalidField("expires_at", "Invalid value for 'expires_at': the time is in the past."))
  }
  return Effect.succeed(date)
}
