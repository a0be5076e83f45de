/**
 * How much the gateway compresses what it sends upstream: `off`; `shadow` (nothing changes on the wire,
 * but what `safe` and `aggressive` would have saved is measured and logged); `safe` (only changes that
 * keep meaning exactly, the default); `aggressive` (`safe`, plus cuts that stay retrievable). Chosen
 * per request (`x-svc-compression`), else per organization, else gateway-wide (`GATEWAY_COMPRESSION`).
 */
export const COMPRESSION_LEVELS = ["off", "shadow", "safe", "aggressive"] as const

export type CompressionLevel = (typeof COMPRESSION_LEVELS)[number]

export const isCompressionLevel = (value: unknown): value is CompressionLevel =>
  typeof value === "string" && (COMPRESSION_LEVELS as ReadonlyArray<string>).includes(value)
