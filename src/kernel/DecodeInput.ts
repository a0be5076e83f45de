/**
 * Decodes client input with a Schema and turns every issue into one 400 that names the first invalid
 * parameter (`messages[0].role`, the way OpenAI names them) and says what is wrong with each.
 */
import { Effect, Schema, SchemaIssue } from "effect"
import { isRecord } from "./Json.ts"
import { RequestError } from "./RequestError.ts"

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/** `messages.0.role` → `messages[0].role`. */
const paramName = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>(
    (name, key) => typeof key === "number" ? `${name}[${key}]` : name === "" ? String(key) : `${name}.${String(key)}`,
    ""
  )

export const toRequestError = (error: Schema.SchemaError): RequestError => {
  const issues = formatter(error.issue).issues.map((issue) => ({
    param: paramName((issue.path ?? []).map((p) => (typeof p === "object" ? p.key : p))),
    message: issue.message
  }))
  const first = issues[0] ?? { param: "", message: "Invalid request" }
  const describe = (issue: { readonly param: string; readonly message: string }) =>
    issue.message === "Missing key"
      ? `Missing required parameter: '${issue.param}'.`
      : `Invalid value for '${issue.param}': ${issue.message}.`
  return RequestError.invalidField(
    first.param,
    issues.map(describe).join(" "),
    first.message === "Missing key" ? "missing_required_parameter" : "invalid_value"
  )
}

/** A decoder for a JSON object body; anything but an object is refused before the schema runs. */
export const decodeInput = <S extends Schema.Decoder<unknown>>(schema: S) => {
  const decode = Schema.decodeUnknownEffect(schema, { errors: "all" })
  return (json: unknown): Effect.Effect<S["Type"], RequestError, S["DecodingServices"]> =>
    isRecord(json)
      ? decode(json).pipe(Effect.mapError(toRequestError))
      : Effect.fail(RequestError.invalidField("", "The request body must be a JSON object.", "invalid_request_body"))
}
