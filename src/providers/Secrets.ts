/**
 * Secrets taken out of what an upstream says before anyone else reads it. A provider's error message
 * may echo the credentials the gateway sent (its API key, an auth header) or other secrets it holds;
 * the message reaches the client (a 4xx is passed on, a 5xx quoted), the log and the traces, so each
 * failure a provider adapter builds is redacted once, where it is built (`HttpAdapter`'s `fail`): the
 * provider's own configured secrets, and anything shaped like a credential.
 */

export const REDACTED = "[redacted]"

/** Credentials by their shape: bearer and basic tokens, vendor API keys, JWTs. */
const SHAPES: ReadonlyArray<readonly [RegExp, string]> = [
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, `$1 ${REDACTED}`],
  // OpenAI, Anthropic (sk-ant-), the gateway's own keys, and the like
  [/\b(?:sk|rk|pk)-[A-Za-z0-9_-]{12,}/g, REDACTED],
  [/\bgsk_[A-Za-z0-9]{12,}/g, REDACTED],
  [/\bAIza[0-9A-Za-z_-]{30,}/g, REDACTED],
  [/\b(?:ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{20,}/g, REDACTED],
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}/g, REDACTED],
  [/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, REDACTED]
]

/** A known secret shorter than this is not looked for: it would match ordinary words. */
const MIN_KNOWN = 8

/** `text` with every `known` secret and every credential-shaped string replaced by `[redacted]`. */
export const redactSecrets = (text: string, known: ReadonlyArray<string> = []): string => {
  let out = text
  for (const secret of known) {
    if (secret.length >= MIN_KNOWN && out.includes(secret)) out = out.split(secret).join(REDACTED)
  }
  for (const [shape, replacement] of SHAPES) out = out.replace(shape, replacement)
  return out
}

/** Header names whose values are credentials, among a provider's configured extra headers. */
const SECRET_HEADER = /auth|key|token|secret|password|cookie/i

/** The secrets a provider is configured with: its API key, and its extra headers that carry credentials. */
export const configuredSecrets = (
  apiKey: string | undefined,
  headers: Readonly<Record<string, string>>
): ReadonlyArray<string> => [
  ...(apiKey === undefined ? [] : [apiKey]),
  ...Object.entries(headers).filter(([name]) => SECRET_HEADER.test(name)).map(([, value]) => value)
]
