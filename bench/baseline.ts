/**
 * The build the guard compares against: the commit named in `bench/BASELINE` (its first line that is
 * not a comment), its sources taken with `git archive` into a folder of its own under the system's
 * temporary folder and its server bundle built there, once per commit. The baseline shares this tree's
 * `node_modules` when its lockfile is this tree's, and installs its own (`npm ci`) otherwise.
 */
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const git = (repoRoot: string, args: ReadonlyArray<string>): string =>
  execFileSync("git", [...args], { cwd: repoRoot, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim()

/** The baseline commit: `override` (any revision git knows), else the one `bench/BASELINE` names, as a full hash. */
export const baselineCommit = (repoRoot: string, override?: string): string => {
  const named = override !== undefined && override !== ""
    ? override
    : readFileSync(join(repoRoot, "bench", "BASELINE"), "utf8").split("\n").map((line) => line.trim())
      .find((line) => line !== "" && !line.startsWith("#"))
  if (named === undefined) throw new Error("bench/BASELINE names no commit")
  try {
    return git(repoRoot, ["rev-parse", "--verify", `${named}^{commit}`])
  } catch {
    throw new Error(
      `bench/BASELINE names ${named}, which this clone does not have (a shallow clone? fetch its history)`
    )
  }
}

/** The baseline's bundle, built if it is not there yet; returns the path of its `dist/main.js`. */
export const buildCommit = (repoRoot: string, commit: string, log: (line: string) => void = console.log): string => {
  const dir = join(tmpdir(), "svc-gateway-guard", commit)
  const entry = join(dir, "dist", "main.js")
  if (existsSync(entry)) return entry
  // built aside and moved into place once complete, so an interrupted build is never taken for a finished one
  const building = `${dir}.building`
  rmSync(building, { recursive: true, force: true })
  mkdirSync(building, { recursive: true })
  log(`guard: building the baseline ${commit.slice(0, 12)} in ${dir}`)
  execFileSync("sh", ["-c", `git archive --format=tar ${commit} | tar -x -C "${building}"`], {
    cwd: repoRoot,
    stdio: "inherit"
  })
  const sameLock = git(repoRoot, ["show", `${commit}:package-lock.json`]) ===
    readFileSync(join(repoRoot, "package-lock.json"), "utf8").trim()
  if (sameLock) {
    symlinkSync(join(repoRoot, "node_modules"), join(building, "node_modules"), "dir")
  } else {
    log("guard: the baseline pins other packages; installing them (npm ci)")
    execFileSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: building, stdio: "inherit" })
  }
  execFileSync(process.execPath, [join("src", "build", "bundleServer.ts")], { cwd: building, stdio: "inherit" })
  rmSync(dir, { recursive: true, force: true })
  renameSync(building, dir)
  return entry
}
