/** JSON as the gateway reads it off the wire: parsed, its shape not yet known. */

/** A JSON object whose keys are still to be checked. */
export type JsonObject = Readonly<Record<string, unknown>>

/** Whether a parsed JSON value is an object: not null, not an array. */
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)
