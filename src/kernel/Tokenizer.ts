/**
 * OpenAI's o200k tokenizer (`gpt-tokenizer`), loaded on first use only: its table is megabytes that a
 * gateway that never counts should not hold. What counts tokens (`count_tokens`, compression's
 * savings) goes through here, so the table is loaded once.
 */

export type TokenCounter = (text: string) => number

let counter: Promise<TokenCounter> | undefined

/** The o200k counter, loaded once. */
export const loadTokenizer = (): Promise<TokenCounter> =>
  counter ??= import("gpt-tokenizer/encoding/o200k_base").then((module) => (text: string) => module.countTokens(text))
