/** Small conversions between database values and the JSON the API returns. */

/** Timestamps come back as `Date` from the wire client; render them as ISO 8601 UTC strings. */
export const toIso = (value: Date | string): string => (value instanceof Date ? value : new Date(value)).toISOString()

export const toIsoOrNull = (value: Date | string | null): string | null => value === null ? null : toIso(value)
