/**
 * Line-level changes that keep what a text says: whitespace at line ends dropped, runs of blank lines
 * made one, and a run of identical lines written once with a count. For tool output only (in prose two
 * trailing spaces are a Markdown line break).
 */

/** The marker after a line written once for a run of `more + 1` identical lines. */
export const repeatMarker = (more: number): string =>
  `[previous line repeated ${more} more time${more === 1 ? "" : "s"}]`

/** `line` without the spaces and tabs at its end (a scan from the end: a regex tried every run of spaces). */
const stripTrailing = (line: string): string => {
  let end = line.length
  while (end > 0) {
    const code = line.charCodeAt(end - 1)
    if (code !== 0x20 && code !== 0x09) break
    end--
  }
  return end === line.length ? line : line.slice(0, end)
}

/**
 * `lines` with trailing whitespace removed, blank runs made one blank line, and identical runs folded
 * where the marker is shorter than the lines it replaces. Blank lines at the start and the end go too,
 * unless the lines are a piece between kept blocks (`inner`): there one stays, so the text reads the
 * same however it is cut into pieces (and a second pass changes nothing).
 */
export const tidyLines = (
  lines: ReadonlyArray<string>,
  inner: { readonly start: boolean; readonly end: boolean } = { start: false, end: false }
): Array<string> => {
  const out: Array<string> = []
  let i = 0
  const n = lines.length
  // each line stripped once: the run check below reads the line after a run, which starts the next one
  let next = n > 0 ? stripTrailing(lines[0]!) : ""
  while (i < n) {
    const line = next
    next = i + 1 < n ? stripTrailing(lines[i + 1]!) : ""
    if (line === "") {
      // one blank line between non-blank ones; none leading unless the piece follows a kept block
      if (out.length > 0 ? out[out.length - 1] !== "" : inner.start) out.push("")
      i++
      continue
    }
    let j = i + 1
    while (j < n && next === line) {
      j++
      next = j < n ? stripTrailing(lines[j]!) : ""
    }
    const more = j - i - 1
    out.push(line)
    if (more > 0) {
      const marker = repeatMarker(more)
      // only when shorter: two copies of "ok" stay two lines
      if (marker.length + 1 < more * (line.length + 1)) out.push(marker)
      else for (let k = 0; k < more; k++) out.push(line)
    }
    i = j
  }
  if (!inner.end) { while (out.length > 0 && out[out.length - 1] === "") out.pop() }
  return out
}
