/**
 * What the CLI asks of the admin API, and the one way it asks: through the client derived from
 * `AdminApi`, whether that client goes to a running gateway over HTTP (`AdminHttp.ts`) or runs the
 * API's own handlers in process on the local store (`AdminClient.ts`). Inputs are the API's bodies as
 * they are; failures are `AdminClientError`s, worded by whichever way the call went (`Invoke`).
 */
import { Effect, type Schema } from "effect"
import type { HttpApiClient } from "effect/http-api"
import type { AdminApi } from "../admin/AdminApi.ts"
import {
  BadRequest,
  Conflict,
  Forbidden,
  InternalError,
  NotFound,
  PayloadTooLarge,
  StoreUnavailable,
  Unauthorized
} from "../admin/AdminApiErrors.ts"
import {
  CreateKey,
  CreateMcpServer,
  CreateOrg,
  CreateUser,
  CreateUserToken,
  OrgUpdate,
  SetOrgTool,
  SetRoles,
  UpdateKey
} from "../admin/AdminPayloads.ts"
import type {
  Analytics,
  ApiKey,
  AuditRecord,
  CreatedApiKey,
  CreatedUserToken,
  LoggedRequest,
  McpServer,
  Org,
  OrgToolSetting,
  RequestPage,
  SvcTool,
  User
} from "../admin/AdminResources.ts"
import { describeError } from "../http/ErrorResponse.ts"
import { decodeInput } from "../kernel/DecodeInput.ts"
import { AdminClientError } from "./AdminClientError.ts"
import { analyticsParams, listParams, type RequestFilterInput, type RequestListInput } from "./LogQuery.ts"

export type OrgUpdateBody = typeof OrgUpdate.Type

export interface AdminClientShape {
  readonly createOrg: (name: string) => Effect.Effect<Org, AdminClientError>
  readonly listOrgs: Effect.Effect<ReadonlyArray<Org>, AdminClientError>
  /** The result holds the secret: the only time it is ever seen. */
  readonly createKey: (orgId: string, input: CreateKey) => Effect.Effect<CreatedApiKey, AdminClientError>
  readonly listKeys: (orgId: string) => Effect.Effect<ReadonlyArray<ApiKey>, AdminClientError>
  readonly revokeKey: (keyId: string) => Effect.Effect<ApiKey, AdminClientError>
  readonly updateKey: (keyId: string, update: UpdateKey) => Effect.Effect<ApiKey, AdminClientError>
  /** The installed shared tools, in catalogue order. */
  readonly listTools: Effect.Effect<ReadonlyArray<SvcTool>, AdminClientError>
  /** Every installed tool with the org's settings (inactive when never set). */
  readonly orgTools: (orgId: string) => Effect.Effect<ReadonlyArray<OrgToolSetting>, AdminClientError>
  /** Sets one tool for one org; hydration left out keeps its current value. */
  readonly setOrgTool: (
    orgId: string,
    toolId: string,
    change: SetOrgTool
  ) => Effect.Effect<OrgToolSetting, AdminClientError>
  /** `PATCH /admin/v1/orgs/{org_id}`'s body, as the API reads it; the org as it now is. */
  readonly updateOrg: (orgId: string, update: OrgUpdateBody) => Effect.Effect<Org, AdminClientError>
  /** A page of the org's request log, newest first; the filters are checked by the admin API. */
  readonly listRequests: (orgId: string, input: RequestListInput) => Effect.Effect<RequestPage, AdminClientError>
  /** One request of the org; NotFound when it is not the org's. */
  readonly getRequest: (orgId: string, requestId: string) => Effect.Effect<LoggedRequest, AdminClientError>
  /**
   * The org's requests (undefined: every org's) matching the filters, per group (`groupBy` as typed:
   * checked by the admin API).
   */
  readonly analytics: (
    orgId: string | undefined,
    groupBy: string,
    input: RequestFilterInput
  ) => Effect.Effect<Analytics, AdminClientError>
  readonly createUser: (input: typeof CreateUser.Type) => Effect.Effect<User, AdminClientError>
  readonly listUsers: Effect.Effect<ReadonlyArray<User>, AdminClientError>
  readonly setRoles: (userId: string, roles: typeof SetRoles.Type["roles"]) => Effect.Effect<User, AdminClientError>
  /** Disabled: the user and her personal tokens are refused until enabled again; her roles stay. */
  readonly setUserDisabled: (userId: string, disabled: boolean) => Effect.Effect<User, AdminClientError>
  /** The result holds the token: the only time it is ever seen. */
  readonly createUserToken: (userId: string, input: typeof CreateUserToken.Type) => Effect.Effect<
    typeof CreatedUserToken.Type,
    AdminClientError
  >
  /** The audit log (an org's, or every org's when undefined), newest first. */
  readonly audit: (
    orgId: string | undefined,
    query: Readonly<Record<string, string>>
  ) => Effect.Effect<ReadonlyArray<typeof AuditRecord.Type>, AdminClientError>
  /** The org's remote MCP servers; the gateway reaches them, so only through a running one. */
  readonly listMcpServers: (orgId: string) => Effect.Effect<ReadonlyArray<McpServer>, AdminClientError>
  readonly addMcpServer: (
    orgId: string,
    input: typeof CreateMcpServer.Type
  ) => Effect.Effect<McpServer, AdminClientError>
  readonly refreshMcpServer: (orgId: string, serverId: string) => Effect.Effect<McpServer, AdminClientError>
  readonly removeMcpServer: (orgId: string, serverId: string) => Effect.Effect<McpServer, AdminClientError>
}

export type AdminApiClient = HttpApiClient.ForApi<typeof AdminApi>

/** Runs one call of the derived client; its failures come out as `AdminClientError`s. */
export type Invoke = <A>(call: (client: AdminApiClient) => Effect.Effect<A, unknown>) => Effect.Effect<
  A,
  AdminClientError
>

/**
 * A body checked against its endpoint's schema before it is sent, so a value the API would refuse is
 * refused in the API's words, and any schema failure later on is the answer's.
 */
const checked = <S extends Schema.Decoder<unknown>>(schema: S, body: unknown) =>
  decodeInput(schema)(body).pipe(
    Effect.mapError((error) => AdminClientError.invalidInput(describeError(error).body.error.message))
  )

/** The query as the API declares it: `tag` a list, the others single values. */
const query = (params: Readonly<Record<string, string | ReadonlyArray<string>>>) => {
  const out: Record<string, string | Array<string>> = {}
  for (const [name, value] of Object.entries(params)) {
    out[name] = name === "tag" ? [value].flat() : typeof value === "string" ? value : [...value]
  }
  return out as never
}

/** How a failure the API declares is told, which depends on where the call went. */
export interface Wording {
  /** The admin token was refused (only over HTTP). */
  readonly refusedToken: string
  /** The gateway or the store failed: the status and the API's message. */
  readonly failed: (status: number, message: string) => string
}

/** A failure the API declares, as the CLI reports it; undefined for anything else. */
export const declaredFailure = (error: unknown, wording: Wording): AdminClientError | undefined => {
  if (error instanceof BadRequest || error instanceof PayloadTooLarge) {
    return AdminClientError.invalidInput(error.error.message)
  }
  if (error instanceof NotFound) return AdminClientError.notFound(error.error.message)
  if (error instanceof Unauthorized) return AdminClientError.refused(wording.refusedToken)
  if (error instanceof Conflict || error instanceof Forbidden) return AdminClientError.refused(error.error.message)
  if (error instanceof StoreUnavailable) return AdminClientError.unavailable(wording.failed(503, error.error.message))
  if (error instanceof InternalError) return AdminClientError.unavailable(wording.failed(500, error.error.message))
  return undefined
}

/** Every operation as a call of the derived client. */
export const adminShape = (invoke: Invoke): AdminClientShape => ({
  createOrg: (name) =>
    Effect.flatMap(checked(CreateOrg, { name }), (payload) => invoke((api) => api.orgs.create({ payload }))),
  listOrgs: invoke((api) => Effect.map(api.orgs.list(), (list) => list.data)),
  createKey: (orgId, input) =>
    Effect.flatMap(
      checked(CreateKey, input),
      (payload) => invoke((api) => api.keys.create({ params: { org_id: orgId }, payload }))
    ),
  listKeys: (orgId) => invoke((api) => Effect.map(api.keys.list({ params: { org_id: orgId } }), (list) => list.data)),
  revokeKey: (keyId) => invoke((api) => api.keys.revoke({ params: { key_id: keyId } })),
  updateKey: (keyId, update) =>
    Effect.flatMap(
      checked(UpdateKey, update),
      (payload) => invoke((api) => api.keys.update({ params: { key_id: keyId }, payload }))
    ),
  listTools: invoke((api) => Effect.map(api.svcTools.catalogue(), (list) => list.data)),
  orgTools: (orgId) =>
    invoke((api) => Effect.map(api.svcTools.orgTools({ params: { org_id: orgId } }), (list) => list.data)),
  setOrgTool: (orgId, toolId, change) =>
    Effect.flatMap(
      checked(SetOrgTool, change),
      (payload) => invoke((api) => api.svcTools.set({ params: { org_id: orgId, tool_id: toolId }, payload }))
    ),
  updateOrg: (orgId, update) =>
    Effect.flatMap(
      checked(OrgUpdate, update),
      (payload) => invoke((api) => api.orgs.update({ params: { org_id: orgId }, payload }))
    ),
  listRequests: (orgId, input) =>
    invoke((api) => api.requests.list({ params: { org_id: orgId }, query: query(listParams(input)) })),
  getRequest: (orgId, requestId) =>
    invoke((api) => api.requests.get({ params: { org_id: orgId, request_id: requestId } })),
  analytics: (orgId, groupBy, input) =>
    invoke((api) =>
      orgId === undefined
        ? api.requests.analyticsAll({ query: query(analyticsParams(groupBy, input)) })
        : api.requests.analytics({ params: { org_id: orgId }, query: query(analyticsParams(groupBy, input)) })
    ),
  createUser: (input) =>
    Effect.flatMap(checked(CreateUser, input), (payload) => invoke((api) => api.users.create({ payload }))),
  listUsers: invoke((api) => Effect.map(api.users.list(), (list) => list.data)),
  setRoles: (userId, roles) =>
    Effect.flatMap(
      checked(SetRoles, { roles }),
      (payload) => invoke((api) => api.users.setRoles({ params: { user_id: userId }, payload }))
    ),
  setUserDisabled: (userId, disabled) =>
    invoke((api) => api.users.update({ params: { user_id: userId }, payload: { disabled } })),
  createUserToken: (userId, input) =>
    Effect.flatMap(
      checked(CreateUserToken, input),
      (payload) => invoke((api) => api.users.createToken({ params: { user_id: userId }, payload }))
    ),
  audit: (orgId, params) =>
    invoke((api) =>
      Effect.map(
        orgId === undefined
          ? api.audit.list({ query: query(params) })
          : api.audit.org({ params: { org_id: orgId }, query: query(params) }),
        (list) => list.data
      )
    ),
  listMcpServers: (orgId) =>
    invoke((api) => Effect.map(api.mcpServers.list({ params: { org_id: orgId } }), (list) => list.data)),
  addMcpServer: (orgId, input) =>
    Effect.flatMap(
      checked(CreateMcpServer, input),
      (payload) => invoke((api) => api.mcpServers.create({ params: { org_id: orgId }, payload }))
    ),
  refreshMcpServer: (orgId, serverId) =>
    invoke((api) => api.mcpServers.refresh({ params: { org_id: orgId, server_id: serverId } })),
  removeMcpServer: (orgId, serverId) =>
    invoke((api) => api.mcpServers.remove({ params: { org_id: orgId, server_id: serverId } }))
})
