/**
 * The client formats that can also go upstream, so a request written in one travels to a target of the
 * same format as it came (`NativeRequest.format`, `Provider.nativeFormats`), and an answer's details only
 * a client of that format reads are tagged with it (`NativeDetail.format`). A literal union, not a
 * string: a misspelt format is a type error, where it used to turn pass-through off without a word.
 * Chat completions are not here: they are the gateway's own model, never carried as a native request.
 */
export type WireFormat = "anthropic" | "openai-responses"
