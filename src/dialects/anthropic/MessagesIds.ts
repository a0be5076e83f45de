/**
 * Ids in the Messages API's shapes: a message's `msg_...`, and a `toolu_...` for a tool call whose
 * upstream gave it none (some OpenAI-compatible servers stream a call without an id), since a client
 * answers a `tool_use` by its id.
 */
import { randomBase62 } from "../../Ids.ts"

export const messageId = (): string => `msg_${randomBase62(24)}`

/** The call's own id, or a new one when it has none. */
export const toolUseId = (
  id: string | undefined
): string => (id === undefined || id === "" ? `toolu_${randomBase62(24)}` : id)
