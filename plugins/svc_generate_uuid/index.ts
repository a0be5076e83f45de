/** svc_generate_uuid: a random RFC 4122 version 4 UUID from the platform's CSPRNG. */
import { Effect, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { defineTool } from "../../src/tools/SvcTool.ts"

export const GenerateUuid = defineTool({
  id: "svc_generate_uuid",
  description: "Returns a newly generated random UUID (version 4).",
  parameters: Schema.Struct({}),
  timeout: "1 second",
  run: () => Effect.sync(() => ({ uuid: randomUUID() }))
})
