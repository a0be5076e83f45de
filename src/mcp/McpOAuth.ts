/**
 * OAuth for a remote MCP server, as the MCP authorization specification describes it, run by the
 * official SDK's `auth()`: the server's protected resource metadata (RFC 9728) names its authorization
 * server, whose metadata (RFC 8414 or OpenID discovery) gives the endpoints; the gateway registers
 * itself as a client where dynamic registration is offered (RFC 7591), sends the person through the
 * authorization code flow with PKCE and the server as the `resource` (RFC 8707), and refreshes the
 * tokens as they expire. This file is the SDK's `OAuthClientProvider` over one server's record: the
 * registered client and the tokens, which `McpSources.ts` keeps sealed, per server and so per org.
 */
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js"
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js"
import { randomBytes } from "node:crypto"

/** What the gateway keeps of one server's authorization (sealed in the store). */
export interface OAuthRecord {
  /** Where the authorization server sends the person back; a client registered for another is dropped. */
  readonly redirectUrl: string
  readonly client?: OAuthClientInformationMixed | undefined
  readonly tokens?: OAuthTokens | undefined
}

/** An authorization begun: where to send the person, and what finishing it needs. */
export interface BegunAuthorization {
  readonly url: URL
  readonly state: string
  readonly codeVerifier: string
}

/** The server needs a person to authorize the gateway (no tokens, or they can no longer be refreshed). */
export class NeedsAuthorization extends Error {}

/** The SDK's OAuth client, loaded with the first authorization (see `McpConnection.ts`). */
const sdkAuth = () => import("@modelcontextprotocol/sdk/client/auth.js")
let loadedAuth: Awaited<ReturnType<typeof sdkAuth>> | undefined

/** Whether a failure says the server wants an authorization the gateway does not have. */
export const isUnauthorized = (cause: unknown): boolean =>
  cause instanceof NeedsAuthorization || (loadedAuth !== undefined && cause instanceof loadedAuth.UnauthorizedError)

const auth: Awaited<ReturnType<typeof sdkAuth>>["auth"] = async (...args) => {
  loadedAuth ??= await sdkAuth()
  return loadedAuth.auth(...args)
}

interface ProviderOptions {
  readonly record: () => OAuthRecord
  readonly save: (record: OAuthRecord) => Promise<void>
  /** The verifier of the authorization being finished. */
  readonly codeVerifier?: string | undefined
  /** Told where the person must go; absent (a tool call), an authorization needed is an error. */
  readonly onAuthorization?: ((begun: BegunAuthorization) => void) | undefined
}

/** The SDK's provider over one server's record. */
export const oauthProvider = (options: ProviderOptions): OAuthClientProvider => {
  let verifier = options.codeVerifier
  let state: string | undefined
  return {
    get redirectUrl() {
      return options.record().redirectUrl
    },
    get clientMetadata() {
      return {
        client_name: "svc-gateway",
        redirect_uris: [options.record().redirectUrl],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        // a public client: PKCE proves the code's redeemer, and no client secret needs keeping
        token_endpoint_auth_method: "none"
      }
    },
    state: () => (state = randomBytes(24).toString("base64url")),
    clientInformation: () => options.record().client,
    saveClientInformation: (client) => options.save({ ...options.record(), client }),
    tokens: () => options.record().tokens,
    saveTokens: (tokens) => options.save({ ...options.record(), tokens }),
    redirectToAuthorization: (url) => {
      if (options.onAuthorization === undefined || verifier === undefined || state === undefined) {
        throw new NeedsAuthorization("an org admin must authorize the gateway at this server again")
      }
      options.onAuthorization({ url, state, codeVerifier: verifier })
    },
    saveCodeVerifier: (codeVerifier) => {
      verifier = codeVerifier
    },
    codeVerifier: () => {
      if (verifier === undefined) throw new NeedsAuthorization("no authorization is being finished")
      return verifier
    },
    invalidateCredentials: (scope) => {
      const { redirectUrl } = options.record()
      if (scope === "all") return options.save({ redirectUrl })
      if (scope === "client") return options.save({ redirectUrl })
      if (scope === "tokens") return options.save({ ...options.record(), tokens: undefined })
    }
  }
}

/**
 * Begins an authorization at the server: discovery, registration when needed, then where to send the
 * person; undefined when the tokens kept (refreshed if need be) still work.
 */
export const beginAuthorization = async (
  serverUrl: string,
  record: () => OAuthRecord,
  save: (record: OAuthRecord) => Promise<void>
): Promise<BegunAuthorization | undefined> => {
  let begun: BegunAuthorization | undefined
  const result = await auth(oauthProvider({ record, save, onAuthorization: (b) => (begun = b) }), { serverUrl })
  return result === "AUTHORIZED" ? undefined : begun
}

/** Finishes an authorization with the code the authorization server sent back: the tokens are saved. */
export const finishAuthorization = async (
  serverUrl: string,
  code: string,
  codeVerifier: string,
  record: () => OAuthRecord,
  save: (record: OAuthRecord) => Promise<void>
): Promise<void> => {
  const result = await auth(oauthProvider({ record, save, codeVerifier }), { serverUrl, authorizationCode: code })
  if (result !== "AUTHORIZED") throw new NeedsAuthorization("the authorization server did not give tokens")
}
