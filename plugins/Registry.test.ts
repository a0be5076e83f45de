/**
 * The plugin list stays honest: every folder under `plugins/` is registered in `plugins/index.ts` under
 * its folder name, with its own README and test, and nothing else is registered; `ToolRegistry.make`
 * refuses malformed and repeated ids at start-up.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { readdirSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { defineTool, type SvcTool } from "../src/tools/SvcTool.ts"
import { ToolRegistry } from "../src/tools/ToolRegistry.ts"
import { plugins } from "./index.ts"

const here = fileURLToPath(new URL(".", import.meta.url))
const folders = readdirSync(here, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort()
const filesOf = (folder: string) => readdirSync(`${here}${folder}`)

const toolWithId = (id: string): SvcTool =>
  defineTool({ id, description: "test", parameters: Schema.Struct({}), run: () => Effect.succeed("ok") })

describe("plugins/", () => {
  it("has at least the two tools of the spec", () => {
    assert.includeMembers(folders, ["svc_current_time", "svc_generate_uuid"])
  })

  it("registers every folder under its folder name, and nothing else", () => {
    assert.deepStrictEqual([...plugins.map((tool) => tool.id)].sort(), folders)
  })

  it("registers no id twice", () => {
    const ids = plugins.map((tool) => tool.id)
    assert.strictEqual(new Set(ids).size, ids.length)
  })

  for (const folder of folders) {
    describe(folder, () => {
      it("has index.ts, README.md and a *.test.ts", () => {
        const files = filesOf(folder)
        assert.include(files, "index.ts")
        assert.include(files, "README.md")
        assert.isTrue(files.some((file) => file.endsWith(".test.ts")), `${folder} has no test`)
      })

      it("registers the tool its own index.ts exports", async () => {
        const module: Record<string, unknown> = await import(`./${folder}/index.ts`)
        const registered = plugins.find((tool) => tool.id === folder)
        assert.isDefined(registered)
        assert.isTrue(Object.values(module).includes(registered), `${folder}/index.ts does not export ${folder}`)
      })

      it("describes itself and offers an object schema", () => {
        const tool = plugins.find((candidate) => candidate.id === folder)!
        assert.isAbove(tool.description.length, 10)
        assert.strictEqual(tool.jsonSchema["type"], "object")
        assert.strictEqual(tool.jsonSchema["additionalProperties"], false)
      })
    })
  }
})

describe("ToolRegistry.make", () => {
  it.effect("builds the registry of the real plugins, in registration order", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry.make(plugins)
      assert.deepStrictEqual(registry.all.map((tool) => tool.id), plugins.map((tool) => tool.id))
      for (const tool of plugins) assert.strictEqual(registry.get(tool.id), tool)
      assert.isUndefined(registry.get("svc_unknown"))
    }))

  for (const id of ["svc_Bad", "nope", "svc_", "svc-dash", "svc_with space", "SVC_upper", ""]) {
    it.effect(`refuses the malformed id '${id}'`, () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(ToolRegistry.make([toolWithId("svc_fine"), toolWithId(id)]))
        assert.strictEqual(error._tag, "ToolRegistryError")
        assert.include(error.message, `'${id}'`)
        assert.include(error.message, "invalid")
      }))
  }

  it.effect("refuses an id registered twice", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        ToolRegistry.make([toolWithId("svc_twice"), toolWithId("svc_other"), toolWithId("svc_twice")])
      )
      assert.strictEqual(error._tag, "ToolRegistryError")
      assert.include(error.message, "'svc_twice'")
      assert.include(error.message, "twice")
    }))

  it.effect("refuses a real plugin registered twice", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(ToolRegistry.make([...plugins, plugins[0]!]))
      assert.strictEqual(error._tag, "ToolRegistryError")
      assert.include(error.message, plugins[0]!.id)
    }))
})
