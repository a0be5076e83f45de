/**
 * Admin routes for shared tools: the installed catalogue, and per organization which tools are
 * activated and hydrated (for the whole org or for chosen keys).
 */
import { Effect, Layer, Schema } from "effect"
import { HttpServerResponse } from "effect/http"
import { decodeInput } from "../kernel/DecodeInput.ts"
import { Policy } from "../tools/Policy.ts"
import { ToolRegistry } from "../tools/ToolRegistry.ts"
import { adminRoute, list, pathParam } from "./AdminRoute.ts"
import { readJsonBody } from "./JsonBody.ts"

const SetOrgTool = Schema.Struct({
  activated: Schema.Boolean,
  hydrate_org: Schema.optionalKey(Schema.Boolean),
  hydrate_key_ids: Schema.optionalKey(Schema.Array(Schema.String))
})

const catalogue = adminRoute(
  "GET",
  "/svc-tools",
  Effect.gen(function*() {
    const registry = yield* ToolRegistry
    return list(registry.all.map((tool) => ({
      id: tool.id,
      description: tool.description,
      parameters: tool.jsonSchema
    })))
  })
)

const orgTools = adminRoute(
  "GET",
  "/orgs/:org_id/svc-tools",
  Effect.gen(function*() {
    return list(yield* (yield* Policy).orgTools(yield* pathParam("org_id")))
  })
)

const setOrgTool = adminRoute(
  "PUT",
  "/orgs/:org_id/svc-tools/:tool_id",
  Effect.gen(function*() {
    const orgId = yield* pathParam("org_id")
    const toolId = yield* pathParam("tool_id")
    const input = yield* decodeInput(SetOrgTool)(yield* readJsonBody)
    const setting = yield* (yield* Policy).setOrgTool(orgId, toolId, {
      activated: input.activated,
      ...(input.hydrate_org === undefined ? {} : { hydrateOrg: input.hydrate_org }),
      ...(input.hydrate_key_ids === undefined ? {} : { hydrateKeyIds: input.hydrate_key_ids })
    })
    return HttpServerResponse.jsonUnsafe(setting)
  })
)

export const AdminToolRoutes = Layer.mergeAll(catalogue, orgTools, setOrgTool)
