/**
 * The authenticated caller of a request, as every part below the edge sees it: which key, which
 * organization, and what the key and organization allow.
 */

import type { CompressionLevel } from "./CompressionLevel.ts"
import type { Limits } from "./Limits.ts"

export interface Caller {
  readonly keyId: string
  readonly keyName: string
  readonly orgId: string
  /** `null`: every shared tool activated for the org is allowed. */
  readonly allowedSvcToolIds: ReadonlyArray<string> | null
  /** The org opted in to storing prompt and completion text in the request log. */
  readonly logContent: boolean
  /** The org's compression level; `null`: the gateway's (`GATEWAY_COMPRESSION`). */
  readonly compression: CompressionLevel | null
  /** The key's and the org's rate limits and budgets; absent: none. */
  readonly limits?: { readonly key: Limits; readonly org: Limits } | undefined
  /** Shares of a dollar budget whose crossing posts an alert (the org's alerts); absent: none. */
  readonly alertThresholds?: ReadonlyArray<number> | undefined
}
