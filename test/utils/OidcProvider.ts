/**
 * A real OpenID provider (`oidc-provider`, the certified implementation) on 127.0.0.1, for the console's
 * single sign-on tests. Its development sign-in page takes any login and password; the login is the
 * account's id and its email, and `accounts` gives an account its groups, name and whether its email is
 * verified. The socket listens before the provider is made, so the gateway can be started with the
 * issuer's URL and the client registered with the gateway's callback afterwards.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import Provider from "oidc-provider"

export interface TestAccount {
  readonly groups?: ReadonlyArray<string>
  readonly name?: string
  readonly emailVerified?: boolean
}

export interface TestProvider {
  readonly issuer: string
  readonly clientId: string
  readonly clientSecret: string
  /** Makes the provider, with the gateway's callback as the client's only redirect URI. */
  readonly register: (redirectUri: string) => void
  readonly accounts: Map<string, TestAccount>
  readonly close: () => Promise<void>
}

export const startOidcProvider = async (): Promise<TestProvider> => {
  let handler: ((request: IncomingMessage, response: ServerResponse) => void) | undefined
  const server = createServer((request, response) => {
    if (handler === undefined) {
      response.writeHead(503).end("not registered yet")
      return
    }
    handler(request, response)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const clientId = "svc-gateway-console"
  const clientSecret = `secret-${Math.random().toString(36).slice(2)}`
  const accounts = new Map<string, TestAccount>()

  const register = (redirectUri: string) => {
    const provider = new Provider(issuer, {
      clients: [{
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_post"
      }],
      claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"], groups: ["groups"] },
      scopes: ["openid", "email", "profile", "groups"],
      pkce: { required: () => true },
      ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600 },
      cookies: { keys: ["svc-gateway-test-cookie-key"] },
      findAccount: (_context, id) => {
        const account = accounts.get(id) ?? {}
        return {
          accountId: id,
          claims: () => ({
            sub: id,
            email: id,
            email_verified: account.emailVerified ?? true,
            name: account.name ?? id.split("@")[0],
            groups: [...(account.groups ?? [])]
          })
        }
      }
    })
    handler = provider.callback()
  }

  return {
    issuer,
    clientId,
    clientSecret,
    register,
    accounts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
