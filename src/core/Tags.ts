/**
 * Request tags, from the body's `tags` and the `x-svc-tags` header (comma-separated; each trimmed,
 * empty ones dropped). When both are present the request gets their union, deduplicated, body tags
 * first in their order, then the header's new ones. At most 32 tags, each 1 to 64 characters of ASCII
 * letters, digits and `-_.:/=@+` (an email fits: `developer:ana@example.com`); anything else is a 400 `invalid_tags` naming the tag and where it came
 * from.
 */
import { Effect } from "effect"
import { RequestError } from "../kernel/RequestError.ts"

export const MAX_TAGS = 32
const TAG = /^[A-Za-z0-9\-_.:/=@+]{1,64}$/

const invalid = (param: string, message: string) => RequestError.invalidField(param, message, "invalid_tags")

/** Splits the header's value: comma-separated, trimmed, empties dropped. */
export const headerTags = (header: string | undefined): ReadonlyArray<string> =>
  header === undefined ? [] : header.split(",").map((tag) => tag.trim()).filter((tag) => tag !== "")

const checkTag = (tag: string, param: string) =>
  TAG.test(tag)
    ? undefined
    : invalid(
      param,
      `Invalid tag ${
        JSON.stringify(tag.length > 80 ? `${tag.slice(0, 80)}...` : tag)
      } in '${param}': a tag is 1 to 64 characters of letters, digits and - _ . : / = @ +.`
    )

export const mergeTags = (
  body: ReadonlyArray<string>,
  header: string | undefined
): Effect.Effect<ReadonlyArray<string>, RequestError> => {
  const merged: Array<string> = []
  const seen = new Set<string>()
  for (const [tags, param] of [[body, "tags"], [headerTags(header), "x-svc-tags"]] as const) {
    for (const tag of tags) {
      const error = checkTag(tag, param)
      if (error !== undefined) return Effect.fail(error)
      if (!seen.has(tag)) {
        seen.add(tag)
        merged.push(tag)
      }
    }
  }
  if (merged.length > MAX_TAGS) {
    return Effect.fail(invalid(
      "tags",
      `Too many tags: ${merged.length} after merging 'tags' and 'x-svc-tags'; at most ${MAX_TAGS} are allowed.`
    ))
  }
  return Effect.succeed(merged)
}
