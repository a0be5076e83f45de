/**
 * Credentials the store keeps for the gateway to use later (an MCP server's headers and OAuth tokens),
 * sealed with AES-256-GCM under a key derived from `GATEWAY_SECRET_KEY`: a copy of the database, a
 * backup or a replica shows none of them. Without the setting nothing can be sealed, and whatever asks
 * is told to set it. A value sealed under another key does not open (it reads as lost, not as garbage).
 */
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto"
import { GatewayConfig } from "../Config.ts"

const VERSION = "v1"

export class SecretSeal extends Context.Service<SecretSeal, {
  /** Undefined when `GATEWAY_SECRET_KEY` is not set. */
  readonly seal: ((plain: string) => string) | undefined
  /** The plain text, or undefined when it was sealed under another key or is damaged. */
  readonly open: (sealed: string) => string | undefined
}>()("svc-gateway/SecretSeal") {
  /** A seal under `secret` (tests; the layer reads the setting). */
  static readonly make = (secret: string | undefined): SecretSeal["Service"] => {
    if (secret === undefined) return { seal: undefined, open: () => undefined }
    const key = createHash("sha256").update(`svc-gateway seal\u0000${secret}`).digest()
    return {
      seal: (plain) => {
        const iv = randomBytes(12)
        const cipher = createCipheriv("aes-256-gcm", key, iv)
        const sealed = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()])
        return [VERSION, iv, cipher.getAuthTag(), sealed].map((part) =>
          typeof part === "string" ? part : part.toString("base64url")
        ).join(".")
      },
      open: (text) => {
        const [version, iv, tag, sealed] = text.split(".")
        if (version !== VERSION || iv === undefined || tag === undefined || sealed === undefined) return undefined
        try {
          const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"))
          decipher.setAuthTag(Buffer.from(tag, "base64url"))
          return Buffer.concat([decipher.update(Buffer.from(sealed, "base64url")), decipher.final()]).toString("utf8")
        } catch {
          return undefined
        }
      }
    }
  }

  static readonly layer = Layer.effect(
    SecretSeal,
    Effect.map(
      Effect.service(GatewayConfig),
      (config) => SecretSeal.of(SecretSeal.make(Option.getOrUndefined(Option.map(config.secretKey, Redacted.value))))
    )
  )
}
