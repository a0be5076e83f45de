/**
 * The contract of a shared tool: a plugin under `plugins/` that the gateway runs itself when a model
 * calls it. A tool declares its parameters as an Effect Schema; the gateway derives the JSON Schema the
 * model sees from it and decodes the model's arguments with it before `run`, so `run` only ever sees
 * valid, typed arguments. Failures are `ToolError`s: the model reads them as the tool's result, and
 * they never fail the client's request.
 *
 * ```ts
 * export const MyTool = defineTool({
 *   id: "svc_my_tool",
 *   description: "What it does, for the model",
 *   parameters: Schema.Struct({ query: Schema.String }),
 *   run: ({ query }) => Effect.succeed({ answer: query.length })
 * })
 * ```
 */
import { Duration, Effect, Schema } from "effect"

/** What a tool may know about the request it runs for. */
export interface ToolContext {
  readonly orgId: string
  readonly keyId: string
  readonly requestId: string
  /**
   * A text that `aggressive` compression cut from this caller's tool results, by the id its marker
   * names; undefined when unknown, expired or another caller's.
   */
  readonly cutOutput: (id: string) => Effect.Effect<string | undefined, ToolError>
}

/** A failure the model should see, in words it can act on. */
export class ToolError extends Schema.TaggedError<ToolError>()("ToolError", {
  message: Schema.String
}) {}

export const SVC_TOOL_ID = /^svc_[a-z0-9_]+$/

/** A tool as a plugin writes it, typed by its parameter schema. */
export interface SvcToolSpec<P extends Schema.Codec<unknown, unknown>> {
  readonly id: string
  readonly description: string
  readonly parameters: P
  /** The result is sent to the model as JSON (a string as it is). */
  readonly run: (args: P["Type"], context: ToolContext) => Effect.Effect<unknown, ToolError>
  /** Longest run; the gateway's default applies when absent. */
  readonly timeout?: Duration.Input
}

/** A tool as the gateway holds it: parameter types erased behind decode-then-run. */
export interface SvcTool {
  readonly id: string
  readonly description: string
  /** The JSON Schema of the parameters, as the model sees it. */
  readonly jsonSchema: Readonly<Record<string, unknown>>
  readonly timeout: Duration.Duration | undefined
  /** Decodes the model's JSON arguments with the tool's schema, then runs it. */
  readonly invoke: (argumentsJson: string, context: ToolContext) => Effect.Effect<unknown, ToolError>
}

/** JSON Schema for function parameters: always an object schema, closed to unknown keys. */
const parametersJsonSchema = (schema: Schema.Top): Record<string, unknown> => {
  const document = Schema.toJsonSchemaDocument(schema)
  const root = document.schema as Record<string, unknown>
  const definitions = document.definitions as Record<string, unknown>
  const object: Record<string, unknown> = root["type"] === "object"
    ? { ...root, additionalProperties: false }
    : { type: "object", properties: {}, additionalProperties: false }
  return Object.keys(definitions).length > 0 ? { ...object, $defs: definitions } : object
}

/** A model's JSON arguments as a value (none: `{}`), or a `ToolError` the model can act on. */
export const parseArguments = (argumentsJson: string): Effect.Effect<unknown, ToolError> =>
  Effect.try({
    try: () => (argumentsJson.trim() === "" ? {} : JSON.parse(argumentsJson)) as unknown,
    catch: () => new ToolError({ message: `The arguments are not valid JSON: ${argumentsJson.slice(0, 200)}` })
  })

export const defineTool = <P extends Schema.Codec<unknown, unknown>>(spec: SvcToolSpec<P>): SvcTool => {
  // the JSON Schema the model sees describes the JSON encoding of `parameters`, so decode that encoding
  // (for `Schema.Number` it admits "Infinity"), not the plain schema
  const decode = Schema.decodeUnknownEffect(Schema.toCodecJson(spec.parameters as Schema.Codec<P["Type"], unknown>))
  const invoke = (argumentsJson: string, context: ToolContext) =>
    Effect.gen(function*() {
      const raw = yield* parseArguments(argumentsJson)
      const args = yield* decode(raw).pipe(
        Effect.mapError((error) => new ToolError({ message: `Invalid arguments: ${error.message}` }))
      )
      return yield* spec.run(args, context)
    })
  return {
    id: spec.id,
    description: spec.description,
    jsonSchema: parametersJsonSchema(spec.parameters),
    timeout: spec.timeout === undefined ? undefined : Duration.fromInputUnsafe(spec.timeout),
    invoke
  }
}
