/**
 * What the CLI asks of the admin API, whichever way it goes: the running gateway's HTTP API
 * (`AdminHttp.ts`) or the store opened in process (`AdminClient.ts`). Both implement this shape.
 */
import type { Effect } from "effect"
import type { CompressionLevel } from "../kernel/CompressionLevel.ts"
import type { LimitsChange } from "../kernel/Limits.ts"
import type { ApiKeyInfo, CreatedApiKey } from "../keys/ApiKeys.ts"
import type { Analytics, RequestLogEntry, RequestPage } from "../logs/RequestQueries.ts"
import type { Org } from "../orgs/Orgs.ts"
import type { OrgToolChange, OrgToolSetting } from "../tools/Policy.ts"
import type { AdminClientError } from "./AdminClientError.ts"
import type { RequestFilterInput, RequestListInput } from "./LogQuery.ts"

/** A new key as the admin API takes it: `expiresAt` is the ISO 8601 text, validated like `expires_at`. */
export interface KeyInput {
  readonly name: string
  readonly expiresAt: string | null
  /** `allowed_svc_tool_ids`: absent or `null` allows every tool activated for the org. */
  readonly allowedSvcToolIds?: ReadonlyArray<string> | null
}

/** A key edit as `PATCH /admin/v1/keys/{key_id}` takes it: only the fields present change. */
export interface KeyUpdate {
  readonly name?: string
  /** ISO 8601 text, or `null`: never expires. */
  readonly expiresAt?: string | null
  /** `null`: every tool activated for the org is allowed. */
  readonly allowedSvcToolIds?: ReadonlyArray<string> | null
  readonly limits?: LimitsChange
}

/** An org update in the admin API's words; the fields left out stay as they are. */
export interface OrgUpdateBody {
  readonly log_content?: boolean
  /** `null`: back to the gateway's level. */
  readonly compression?: CompressionLevel | null
  readonly limits?: LimitsChange
}

/** An installed shared tool as `GET /admin/v1/svc-tools` lists it. */
export interface SvcToolInfo {
  readonly id: string
  readonly description: string
  /** The JSON Schema of its arguments. */
  readonly parameters: Readonly<Record<string, unknown>>
}

export interface AdminClientShape {
  readonly createOrg: (name: string) => Effect.Effect<Org, AdminClientError>
  readonly listOrgs: Effect.Effect<ReadonlyArray<Org>, AdminClientError>
  /** The result holds the secret: the only time it is ever seen. */
  readonly createKey: (orgId: string, input: KeyInput) => Effect.Effect<CreatedApiKey, AdminClientError>
  readonly listKeys: (orgId: string) => Effect.Effect<ReadonlyArray<ApiKeyInfo>, AdminClientError>
  readonly revokeKey: (keyId: string) => Effect.Effect<ApiKeyInfo, AdminClientError>
  readonly updateKey: (keyId: string, update: KeyUpdate) => Effect.Effect<ApiKeyInfo, AdminClientError>
  /** The installed shared tools, in catalogue order. */
  readonly listTools: Effect.Effect<ReadonlyArray<SvcToolInfo>, AdminClientError>
  /** Every installed tool with the org's settings (inactive when never set). */
  readonly orgTools: (orgId: string) => Effect.Effect<ReadonlyArray<OrgToolSetting>, AdminClientError>
  /** Sets one tool for one org; hydration left out keeps its current value. */
  readonly setOrgTool: (
    orgId: string,
    toolId: string,
    change: OrgToolChange
  ) => Effect.Effect<OrgToolSetting, AdminClientError>
  /** `PATCH /admin/v1/orgs/{org_id}`'s body, as the API reads it; the org as it now is. */
  readonly updateOrg: (orgId: string, update: OrgUpdateBody) => Effect.Effect<Org, AdminClientError>
  /** A page of the org's request log, newest first; the filters are checked as the admin API checks them. */
  readonly listRequests: (orgId: string, input: RequestListInput) => Effect.Effect<RequestPage, AdminClientError>
  /** One request of the org; NotFound when it is not the org's. */
  readonly getRequest: (orgId: string, requestId: string) => Effect.Effect<RequestLogEntry, AdminClientError>
  /** The org's requests matching the filters, per group (`groupBy` as typed: checked by the admin API). */
  readonly analytics: (
    orgId: string,
    groupBy: string,
    input: RequestFilterInput
  ) => Effect.Effect<Analytics, AdminClientError>
}
