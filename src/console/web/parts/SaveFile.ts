/**
 * Saves a file the page fetched itself (with the admin token in a header, which a link cannot carry)
 * through the browser's usual download.
 */

/** The browser reads the object URL after the click returns: a minute is ample, then the memory goes. */
const KEEP_URL_MS = 60_000

export const saveFile = (blob: Blob, name: string) => {
  const url = URL.createObjectURL(blob)
  const link = document.createElement("a")
  link.href = url
  link.download = name
  link.hidden = true
  document.body.append(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(url), KEEP_URL_MS)
}
