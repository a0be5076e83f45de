/**
 * The data folder holds the request log (prompts when an org keeps them), cut tool outputs and pending
 * results: only the gateway's own user may read it, whatever the umask. Folders the gateway makes or
 * uses there are 0700 and its files 0600; a file's mode is set when it is created (so it is never
 * readable by others, not even for a moment) and again on every start (a store made by an older
 * release, or copied in, is tightened too).
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs"

export const PRIVATE_DIR = 0o700
export const PRIVATE_FILE = 0o600

/** Makes `dir` (and its missing parents) and sets it 0700. */
export const privateDir = (dir: string): void => {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR })
  chmodSync(dir, PRIVATE_DIR)
}

/** Creates `file` empty when missing, 0600 from the start, and sets it 0600 when it is there. */
export const privateFile = (file: string): void => {
  closeSync(openSync(file, "a", PRIVATE_FILE))
  chmodSync(file, PRIVATE_FILE)
}

/** Sets each of `files` that exists 0600 (those another program creates, such as SQLite's journal). */
export const tightenFiles = (files: ReadonlyArray<string>): void => {
  for (const file of files) if (existsSync(file)) chmodSync(file, PRIVATE_FILE)
}
