/** Tool schemas as Gemini takes them: what clients send, cleaned of what Gemini refuses. */
import { describe, expect, it } from "vitest"
import { geminiSchema } from "../../../src/providers/gemini/GeminiSchema.ts"

describe("geminiSchema", () => {
  it("a Claude Code tool (zod-generated): $schema, additionalProperties, defaults and exclusive bounds removed", () => {
    expect(geminiSchema({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      additionalProperties: false,
      properties: {
        command: { type: "string", description: "The command" },
        timeout: { type: "number", exclusiveMinimum: 0, maximum: 600000, default: 120000 },
        run_in_background: { type: "boolean", examples: [true] }
      },
      required: ["command", "missing"]
    })).toEqual({
      type: "object",
      properties: {
        command: { type: "string", description: "The command" },
        timeout: { type: "number", maximum: 600000 },
        run_in_background: { type: "boolean" }
      },
      required: ["command"]
    })
  })

  it("nullable unions, const, oneOf and formats Gemini does not take", () => {
    expect(geminiSchema({
      type: "object",
      properties: {
        a: { type: ["string", "null"], format: "uri" },
        b: { const: "fixed" },
        c: { oneOf: [{ type: "string" }, { type: "integer", format: "int64" }] },
        d: { anyOf: [{ type: "string", format: "date-time" }, { type: "null" }] },
        e: { type: "integer", enum: [1, 2] }
      }
    })).toEqual({
      type: "object",
      properties: {
        a: { type: "string", nullable: true },
        b: { type: "string", enum: ["fixed"] },
        c: { anyOf: [{ type: "string" }, { type: "integer", format: "int64" }] },
        d: { type: "string", format: "date-time", nullable: true },
        e: { type: "integer" }
      }
    })
  })

  it("$ref resolved from $defs (a cycle ends), allOf merged, nested items cleaned", () => {
    expect(geminiSchema({
      type: "object",
      $defs: { Node: { type: "object", properties: { name: { type: "string" }, child: { $ref: "#/$defs/Node" } } } },
      properties: {
        tree: { $ref: "#/$defs/Node", description: "root" },
        both: {
          allOf: [{ type: "object", properties: { x: { type: "string" } }, required: ["x"] }, {
            properties: { y: { type: "number" } }
          }]
        },
        list: {
          type: "array",
          items: { type: "object", additionalProperties: { type: "string" }, properties: { k: { type: "string" } } }
        }
      }
    })).toMatchObject({
      type: "object",
      properties: {
        tree: {
          type: "object",
          description: "root",
          properties: { name: { type: "string" }, child: { type: "object", properties: { name: { type: "string" } } } }
        },
        both: { type: "object", properties: { x: { type: "string" }, y: { type: "number" } }, required: ["x"] },
        list: { type: "array", items: { type: "object", properties: { k: { type: "string" } } } }
      }
    })
    expect(
      JSON.stringify(
        geminiSchema({
          type: "object",
          $defs: { N: { type: "object", properties: { n: { $ref: "#/$defs/N" } } } },
          properties: { n: { $ref: "#/$defs/N" } }
        })
      )
    ).not.toContain("$ref")
  })

  it("an object without properties means no parameters", () => {
    expect(geminiSchema({ type: "object", properties: {} })).toBeUndefined()
    expect(geminiSchema({ type: "object", additionalProperties: false })).toBeUndefined()
    expect(geminiSchema(undefined)).toBeUndefined()
  })
})
