/**
 * A tool's JSON Schema as Gemini's `functionDeclarations[].parameters` takes it: the OpenAPI subset of
 * Gemini's `Schema`. Gemini refuses a declaration with a keyword it does not know, so what clients send
 * (Claude Code's and Codex's tools, zod-generated schemas) is rewritten:
 * - `$ref` is replaced by its `$defs` / `definitions` entry (a cycle ends in `{type: object}`);
 * - `type: ["string", "null"]` is `type: "string"` + `nullable: true`; `const` is a one-value `enum`;
 *   `oneOf` is `anyOf`; an `allOf` of objects is merged into one;
 * - `enum` stays on strings only (as strings); `format` stays where Gemini takes it (`enum` and
 *   `date-time` on strings, `int32`/`int64`, `float`/`double`);
 * - every other keyword (`$schema`, `additionalProperties`, `default`, `examples`, `exclusiveMinimum`,
 *   `patternProperties`, `not`, `if`, `strict`, ...) is removed; `required` keeps only listed properties.
 * An object without properties is sent without them (Gemini refuses an empty `properties`).
 */
import { isRecord } from "../../kernel/Json.ts"
type Json = Record<string, unknown>

/** Keywords Gemini's Schema has (beside the ones rewritten below). */
const KEPT: ReadonlySet<string> = new Set([
  "description",
  "title",
  "minItems",
  "maxItems",
  "minLength",
  "maxLength",
  "pattern",
  "minimum",
  "maximum",
  "minProperties",
  "maxProperties",
  "propertyOrdering"
])

const FORMATS: Readonly<Record<string, ReadonlySet<string>>> = {
  string: new Set(["enum", "date-time"]),
  integer: new Set(["int32", "int64"]),
  number: new Set(["float", "double"])
}

/** Deepest `$ref` chain followed; schemas deeper than this are cut to `{type: object}`. */
const MAX_DEPTH = 12

const mergeAllOf = (parts: ReadonlyArray<unknown>): Json => {
  const merged: Json = {}
  const properties: Json = {}
  const required: Array<unknown> = []
  for (const part of parts) {
    if (!isRecord(part)) continue
    Object.assign(merged, part)
    if (isRecord(part["properties"])) Object.assign(properties, part["properties"])
    if (Array.isArray(part["required"])) required.push(...part["required"])
  }
  if (Object.keys(properties).length > 0) merged["properties"] = properties
  if (required.length > 0) merged["required"] = [...new Set(required)]
  return merged
}

const clean = (schema: unknown, defs: Json, depth: number): Json => {
  if (!isRecord(schema) || depth > MAX_DEPTH) return { type: "object" }
  let source = schema
  const ref = source["$ref"]
  if (typeof ref === "string") {
    const name = ref.replace(/^#\/(\$defs|definitions)\//, "")
    const target = defs[name]
    // the reference's own keywords (a description) beside what it points at
    const { $ref: _ref, ...rest } = source
    source = isRecord(target) ? { ...target, ...rest } : rest
    depth++
  }
  if (Array.isArray(source["allOf"])) {
    const { allOf, ...rest } = source
    source = { ...mergeAllOf(allOf), ...rest }
  }
  const out: Json = {}
  let type = source["type"]
  if (Array.isArray(type)) {
    const types = type.filter((t) => t !== "null")
    if (types.length < type.length) out["nullable"] = true
    type = types[0]
  }
  if (source["nullable"] === true) out["nullable"] = true
  if (typeof type === "string") out["type"] = type
  for (const key in source) if (KEPT.has(key)) out[key] = source[key]
  const format = source["format"]
  if (typeof format === "string" && typeof type === "string" && FORMATS[type]?.has(format)) out["format"] = format
  const values = source["const"] !== undefined ? [source["const"]] : source["enum"]
  if (Array.isArray(values) && (type === undefined || type === "string")) {
    out["type"] = "string"
    out["enum"] = values.filter((v) => v !== null).map(String)
  }
  const union = source["anyOf"] ?? source["oneOf"]
  if (Array.isArray(union)) {
    const options = union.filter((option) => !(isRecord(option) && option["type"] === "null"))
    if (options.length < union.length) out["nullable"] = true
    if (options.length === 1) Object.assign(out, clean(options[0], defs, depth + 1))
    else out["anyOf"] = options.map((option) => clean(option, defs, depth + 1))
  }
  if (isRecord(source["items"])) out["items"] = clean(source["items"], defs, depth + 1)
  if (isRecord(source["properties"])) {
    const properties: Json = {}
    for (const [name, property] of Object.entries(source["properties"])) {
      properties[name] = clean(property, defs, depth + 1)
    }
    if (Object.keys(properties).length > 0) {
      out["properties"] = properties
      const required = source["required"]
      if (Array.isArray(required)) {
        const listed = required.filter((name) => typeof name === "string" && name in properties)
        if (listed.length > 0) out["required"] = listed
      }
    }
  }
  return out
}

/** `schema` as Gemini takes it; undefined for an object without properties (no parameters at all). */
export const geminiSchema = (schema: unknown): Json | undefined => {
  if (!isRecord(schema)) return undefined
  const defs = {
    ...(isRecord(schema["definitions"]) ? schema["definitions"] : {}),
    ...(isRecord(schema["$defs"]) ? schema["$defs"] : {})
  }
  const out = clean(schema, defs, 0)
  return out["type"] === "object" && out["properties"] === undefined && out["anyOf"] === undefined ? undefined : out
}
