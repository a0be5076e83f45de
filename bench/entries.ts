/**
 * What `bench/cpu.ts` and `bench/instructions.ts` are told: the builds they compare, from their
 * arguments, `<entry>` (a `dist/main.js`, of this tree or of another commit's worktree) or
 * `<entry>::NAME=value,NAME=value` (that build with those settings); and their counts, from the environment.
 */
import { resolve } from "node:path"
import type { Mode } from "./report.ts"

export interface Entry {
  /** The bundle, as an absolute path. */
  readonly entry: string
  /** The settings after `::`, added to the build's environment. */
  readonly env: Readonly<Record<string, string>>
  /** The argument as given: how the build is named in the output. */
  readonly label: string
}

export const parseEntries = (args: ReadonlyArray<string>): ReadonlyArray<Entry> =>
  args.map((arg) => {
    const [entry = "", settings = ""] = arg.split("::")
    const env = Object.fromEntries(
      settings.split(",").filter((s) => s !== "").map((s) => {
        const equals = s.indexOf("=")
        if (equals < 1) throw new Error(`${arg}: a setting is NAME=value, not '${s}'`)
        return [s.slice(0, equals), s.slice(equals + 1)]
      })
    )
    return { entry: resolve(entry), env, label: arg }
  })

/**
 * Node flags for an entry beyond the start script's: `more` (flags every build gets, space-separated),
 * then its own `NODE_FLAGS` setting (`dist/main.js::NODE_FLAGS=--no-maglev --cpu-prof`).
 */
export const extraNodeFlags = (env: Entry["env"], more = ""): ReadonlyArray<string> =>
  `${more} ${env["NODE_FLAGS"] ?? ""}`.split(" ").filter((f) => f !== "")

/** A count from the environment variable `name`, else `fallback`; anything but a positive integer is refused. */
export const envInt = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback)
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`)
  return value
}

/** The modes named by the environment variable `name` (comma-separated), both when unset; others refused. */
export const envModes = (name: string): ReadonlyArray<Mode> => {
  const modes = (process.env[name] ?? "non-stream,stream").split(",")
  for (const mode of modes) {
    if (mode !== "non-stream" && mode !== "stream") throw new Error(`${name}: ${mode} is not non-stream or stream`)
  }
  return modes as Array<Mode>
}
