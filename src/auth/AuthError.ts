/**
 * Why a caller was not let in. Every reason is a 401; the message tells an API-key user how to get a
 * working key, since the spec's only advice for a bad key is to generate a new one.
 */
import { Schema } from "effect"

export class MissingKey extends Schema.TaggedError<MissingKey>()("MissingKey", {}) {}
export class InvalidKey extends Schema.TaggedError<InvalidKey>()("InvalidKey", {}) {}
/** A known key's owner: the request log files a refusal of that key under its org. */
const Owner = { keyId: Schema.optionalKey(Schema.String), orgId: Schema.optionalKey(Schema.String) }

export class ExpiredKey
  extends Schema.TaggedError<ExpiredKey>()("ExpiredKey", { expiredAt: Schema.String, ...Owner })
{}
export class RevokedKey extends Schema.TaggedError<RevokedKey>()("RevokedKey", Owner) {}
/** No admin token or personal access token, or a wrong one; `detail` says why a known token was refused. */
export class InvalidAdminToken extends Schema.TaggedError<InvalidAdminToken>()("InvalidAdminToken", {
  detail: Schema.optionalKey(Schema.String)
}) {}

export class AuthError extends Schema.TaggedError<AuthError>()("AuthError", {
  reason: Schema.Union([MissingKey, InvalidKey, ExpiredKey, RevokedKey, InvalidAdminToken])
}) {}
