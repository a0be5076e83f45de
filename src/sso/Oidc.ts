/**
 * The console's single sign-on with an OpenID provider (Keycloak, Google, Entra ID, ...), over
 * `openid-client`: the authorization code flow with PKCE, `state` and `nonce`, the ID token checked by
 * the library (issuer, audience, signature, expiry, nonce), and the person's claims from the ID token
 * and, for what it lacks, the userinfo endpoint. The provider's metadata is discovered on the first
 * sign-in and kept; a provider down at that moment is asked again at the next one.
 *
 * Settings come from `GATEWAY_OIDC_*` and are checked when the gateway starts: a half-configured sign-on
 * stops the start with a message rather than failing a person at the provider. `openid-client` is
 * loaded with the first sign-in, so a gateway without single sign-on never holds it.
 */
import { Context, Effect, Layer, Option, Redacted, Schema } from "effect"
import type * as OpenIdClient from "openid-client"
import { GatewayConfig, type OidcSettings } from "../Config.ts"
import { parseRoleMap, type RoleMap } from "./RoleMap.ts"

/** The provider could not be reached or answered wrongly; the sign-in can be tried again. */
export class ProviderFailed extends Schema.TaggedError<ProviderFailed>()("ProviderFailed", {
  message: Schema.String
}) {}

/** The sign-in was refused (by the provider, or by the gateway's checks); the message says why. */
export class SignInRefused extends Schema.TaggedError<SignInRefused>()("SignInRefused", {
  message: Schema.String
}) {}

export class SsoError extends Schema.TaggedError<SsoError>()("SsoError", {
  reason: Schema.Union([ProviderFailed, SignInRefused])
}) {
  static readonly refused = (message: string) => new SsoError({ reason: new SignInRefused({ message }) })
}

/** The settings are incomplete or unreadable: the gateway does not start. */
export class OidcConfigError extends Schema.TaggedError<OidcConfigError>()("OidcConfigError", {
  message: Schema.String
}) {}

/** Single sign-on as configured: where the provider is and how its claims become roles. */
export interface OidcSetup {
  readonly issuer: URL
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string> | undefined
  readonly redirectUrl: string | undefined
  readonly scopes: string
  readonly rolesClaim: string | undefined
  readonly roleMap: RoleMap
  readonly requireVerifiedEmail: boolean
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"])

/** The settings checked; none when no issuer is set (the console takes tokens only). */
export const oidcSetup = (settings: OidcSettings): Effect.Effect<Option.Option<OidcSetup>, OidcConfigError> =>
  Effect.gen(function*() {
    if (Option.isNone(settings.issuer)) return Option.none()
    const fail = (message: string) => Effect.fail(new OidcConfigError({ message }))
    let issuer: URL
    try {
      issuer = new URL(settings.issuer.value)
    } catch {
      return yield* fail(`GATEWAY_OIDC_ISSUER '${settings.issuer.value}' is not a URL.`)
    }
    // the provider's answers decide who is signed in: only a loopback provider (a test, a local
    // Keycloak) may be reached without TLS
    if (issuer.protocol !== "https:" && !(issuer.protocol === "http:" && LOOPBACK.has(issuer.hostname))) {
      return yield* fail(`GATEWAY_OIDC_ISSUER must be an https URL (http only on 127.0.0.1 or localhost).`)
    }
    if (Option.isNone(settings.clientId)) return yield* fail("GATEWAY_OIDC_ISSUER is set: set GATEWAY_OIDC_CLIENT_ID.")
    const redirectUrl = Option.getOrUndefined(settings.redirectUrl)
    if (redirectUrl !== undefined && !URL.canParse(redirectUrl)) {
      return yield* fail(`GATEWAY_OIDC_REDIRECT_URL '${redirectUrl}' is not a URL.`)
    }
    const roleMap = parseRoleMap(settings.roleMap)
    if ("error" in roleMap) return yield* fail(`GATEWAY_OIDC_ROLE_MAP: ${roleMap.error}.`)
    const rolesClaim = Option.getOrUndefined(settings.rolesClaim)
    if (roleMap.size > 0 && rolesClaim === undefined) {
      return yield* fail("GATEWAY_OIDC_ROLE_MAP is set: set GATEWAY_OIDC_ROLES_CLAIM to the claim it maps (groups).")
    }
    if (rolesClaim !== undefined && roleMap.size === 0) {
      return yield* fail("GATEWAY_OIDC_ROLES_CLAIM is set: set GATEWAY_OIDC_ROLE_MAP (group=role[:org_id], ...).")
    }
    return Option.some({
      issuer,
      clientId: settings.clientId.value,
      clientSecret: Option.getOrUndefined(settings.clientSecret),
      redirectUrl,
      scopes: settings.scopes.includes("openid") ? settings.scopes : `openid ${settings.scopes}`,
      rolesClaim,
      roleMap,
      requireVerifiedEmail: settings.requireVerifiedEmail
    })
  })

/** A sign-in begun: the provider's URL to send the browser to, and what must be kept to finish it. */
export interface BegunSignIn {
  readonly url: URL
  readonly state: string
  readonly codeVerifier: string
  readonly nonce: string
}

/** The person as the provider vouches for her: the ID token's claims, completed from userinfo. */
export type Claims = Readonly<Record<string, unknown>>

type Client = typeof OpenIdClient

const providerFailed = (client: Client, what: string) => (cause: unknown) => {
  const detail = cause instanceof Error ? cause.message : String(cause)
  // an error the provider answered with (access_denied, invalid_grant) is a refusal, not an outage
  const refusal = cause instanceof client.AuthorizationResponseError || cause instanceof client.ResponseBodyError
  return new SsoError({
    reason: refusal
      ? new SignInRefused({ message: `The identity provider refused the sign-in: ${detail}` })
      : new ProviderFailed({ message: `${what}: ${detail}` })
  })
}

export class Oidc extends Context.Service<Oidc, {
  /** None when single sign-on is not configured. */
  readonly setup: Option.Option<OidcSetup>
  readonly begin: (redirectUrl: string) => Effect.Effect<BegunSignIn, SsoError>
  /** Redeems the code the provider sent back to `callbackUrl` and returns the person's claims. */
  readonly finish: (
    callbackUrl: URL,
    expected: { readonly state: string; readonly codeVerifier: string; readonly nonce: string }
  ) => Effect.Effect<Claims, SsoError>
}>()("svc-gateway/Oidc") {
  static readonly layer = Layer.effect(
    Oidc,
    Effect.gen(function*() {
      const setup = yield* oidcSetup((yield* GatewayConfig).oidc)
      const loaded = Effect.cached(Effect.promise(() => import("openid-client")))
      const openid = yield* loaded
      let discovered: OpenIdClient.Configuration | undefined

      const configuration = (client: Client, found: OidcSetup) =>
        discovered !== undefined ? Effect.succeed(discovered) : Effect.tryPromise({
          try: () =>
            client.discovery(
              found.issuer,
              found.clientId,
              found.clientSecret === undefined ? undefined : Redacted.value(found.clientSecret),
              found.clientSecret === undefined ? client.None() : undefined,
              { execute: found.issuer.protocol === "http:" ? [client.allowInsecureRequests] : [], timeout: 10 }
            ),
          catch: providerFailed(client, `The identity provider at ${found.issuer.href} could not be reached`)
        }).pipe(Effect.tap((config) =>
          Effect.sync(() => {
            discovered = config
          })
        ))

      const required = Option.match(setup, {
        onNone: () => Effect.fail(SsoError.refused("Single sign-on is not configured on this gateway.")),
        onSome: Effect.succeed
      })

      const begin = (redirectUrl: string) =>
        Effect.gen(function*() {
          const found = yield* required
          const client = yield* openid
          const config = yield* configuration(client, found)
          const codeVerifier = client.randomPKCECodeVerifier()
          const state = client.randomState()
          const nonce = client.randomNonce()
          const challenge = yield* Effect.promise(() => client.calculatePKCECodeChallenge(codeVerifier))
          const url = client.buildAuthorizationUrl(config, {
            redirect_uri: redirectUrl,
            scope: found.scopes,
            code_challenge: challenge,
            code_challenge_method: "S256",
            state,
            nonce
          })
          return { url, state, codeVerifier, nonce }
        })

      const finish = (
        callbackUrl: URL,
        expected: { readonly state: string; readonly codeVerifier: string; readonly nonce: string }
      ) =>
        Effect.gen(function*() {
          const found = yield* required
          const client = yield* openid
          const config = yield* configuration(client, found)
          const tokens = yield* Effect.tryPromise({
            try: () =>
              client.authorizationCodeGrant(config, callbackUrl, {
                pkceCodeVerifier: expected.codeVerifier,
                expectedState: expected.state,
                expectedNonce: expected.nonce,
                idTokenExpected: true
              }),
            catch: providerFailed(client, "The identity provider's token endpoint failed")
          })
          const idClaims: Claims = tokens.claims() ?? {}
          const lacking = idClaims["email"] === undefined ||
            (found.rolesClaim !== undefined && idClaims[found.rolesClaim] === undefined)
          if (!lacking) return idClaims
          // many providers put the profile in userinfo only, not in the ID token
          const userInfo = yield* Effect.tryPromise({
            try: () => client.fetchUserInfo(config, tokens.access_token, String(idClaims["sub"])),
            catch: providerFailed(client, "The identity provider's userinfo endpoint failed")
          })
          return { ...userInfo, ...idClaims }
        })

      return Oidc.of({ setup, begin, finish })
    })
  )
}
