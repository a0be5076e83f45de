/**
 * The console's single sign-on, as routes under `/console/sso/`:
 * - `GET login` keeps a new sign-in (verifier, nonce, and a secret in a `SameSite=Lax` cookie, so only
 *   this browser can finish it) and sends the browser to the provider;
 * - `GET callback` is where the provider sends it back: the code redeemed, the person found
 *   (`sso/SignInUser.ts`), a session opened in an HTTP-only `SameSite=Strict` cookie (`Secure` when the
 *   gateway is reached over https), then back to the console; a refusal goes back to the console with
 *   its reason (`?sso_error=`) to show on the sign-in page;
 * - `GET status` tells the page whether single sign-on is offered and, when its cookie holds a session,
 *   the session's CSRF token, which the page sends with every change;
 * - `POST logout` ends the session (its CSRF token required) and clears the cookie.
 * Without `GATEWAY_OIDC_ISSUER`, `status` says single sign-on is off and the others are 404s.
 */
import { Duration, Effect, Layer, Option } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { GatewayConfig } from "../Config.ts"
import { describeError } from "../core/Problem.ts"
import { randomBase62 } from "../Ids.ts"
import { CSRF_HEADER, SESSION_COOKIE } from "../kernel/ConsoleCookie.ts"
import { RequestError, RouteNotFound } from "../kernel/RequestError.ts"
import { ConsoleSessions, csrfRefused, csrfTokenOf, LOGIN_WINDOW } from "../sso/ConsoleSessions.ts"
import { Oidc, type OidcSetup, SsoError } from "../sso/Oidc.ts"
import { signInUser } from "../sso/SignInUser.ts"
import { errorResponse } from "./ErrorResponse.ts"
import { publicOrigin } from "./PublicOrigin.ts"

const LOGIN_COOKIE = "svc_console_login"
const LOGIN_PATH = "/console/sso"
const CONSOLE = "/console/"

/** The URL the provider sends the browser back to: configured, or this gateway's as the browser sees it. */
const callbackUrl = (request: HttpServerRequest.HttpServerRequest, setup: OidcSetup): URL => {
  if (setup.redirectUrl !== undefined) return new URL(setup.redirectUrl)
  return new URL(`${publicOrigin(request)}/console/sso/callback`)
}

const notFound = (request: HttpServerRequest.HttpServerRequest) =>
  errorResponse(new RequestError({ reason: new RouteNotFound({ method: request.method, path: request.url }) }))

/** Back to the console's sign-in page with the reason, the login cookie cleared. */
const backWithError = (message: string, secure: boolean) =>
  HttpServerResponse.redirect(`${CONSOLE}?sso_error=${encodeURIComponent(message)}`).pipe(
    HttpServerResponse.expireCookieUnsafe(LOGIN_COOKIE, { path: LOGIN_PATH, httpOnly: true, secure })
  )

const login = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const oidc = yield* Oidc
  const sessions = yield* ConsoleSessions
  if (Option.isNone(oidc.setup)) return notFound(request)
  const callback = callbackUrl(request, oidc.setup.value)
  const secure = callback.protocol === "https:"
  return yield* Effect.gen(function*() {
    const begun = yield* oidc.begin(callback.href)
    const browserSecret = randomBase62(32)
    yield* sessions.beginLogin({ ...begun, browserSecret })
    return HttpServerResponse.redirect(begun.url).pipe(
      HttpServerResponse.setCookieUnsafe(LOGIN_COOKIE, browserSecret, {
        path: LOGIN_PATH,
        httpOnly: true,
        // the provider's redirect back is a cross-site navigation: Lax lets this cookie ride along
        sameSite: "lax",
        secure,
        maxAge: LOGIN_WINDOW
      })
    )
  }).pipe(Effect.catchTag("SsoError", (error) => Effect.succeed(backWithError(error.reason.message, secure))))
})

const callback = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const oidc = yield* Oidc
  const sessions = yield* ConsoleSessions
  const config = yield* GatewayConfig
  if (Option.isNone(oidc.setup)) return notFound(request)
  const setup = oidc.setup.value
  const url = callbackUrl(request, setup)
  url.search = new URL(request.url, url).search
  const secure = url.protocol === "https:"
  return yield* Effect.gen(function*() {
    const state = url.searchParams.get("state")
    const browserSecret = request.cookies[LOGIN_COOKIE]
    const pending = state === null || browserSecret === undefined
      ? Option.none()
      : yield* sessions.takeLogin(state, browserSecret)
    if (Option.isNone(pending)) {
      return yield* SsoError.refused(
        `This sign-in was begun in another browser or more than ${Duration.format(LOGIN_WINDOW)} ago; sign in again.`
      )
    }
    const claims = yield* oidc.finish(url, { state: state!, ...pending.value })
    const user = yield* signInUser(setup, claims, {
      requestId: request.headers["x-request-id"] ?? null,
      address: Option.getOrNull(request.remoteAddress)
    }).pipe(Effect.catchTag("AdminError", (error) => Effect.fail(SsoError.refused(describeError(error).message))))
    const opened = yield* sessions.open(user.id, config.consoleSessionTtl)
    return HttpServerResponse.redirect(CONSOLE).pipe(
      HttpServerResponse.expireCookieUnsafe(LOGIN_COOKIE, { path: LOGIN_PATH, httpOnly: true, secure }),
      HttpServerResponse.setCookieUnsafe(SESSION_COOKIE, opened.token, {
        path: "/",
        httpOnly: true,
        sameSite: "strict",
        secure,
        expires: opened.expiresAt
      })
    )
  }).pipe(Effect.catchTag("SsoError", (error) => Effect.succeed(backWithError(error.reason.message, secure))))
})

const status = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const oidc = yield* Oidc
  const sessions = yield* ConsoleSessions
  const token = request.cookies[SESSION_COOKIE]
  const found = token === undefined ? undefined : yield* sessions.authenticate(token)
  const signedIn = found !== undefined && typeof found !== "string"
  return HttpServerResponse.jsonUnsafe({
    enabled: Option.isSome(oidc.setup),
    signed_in: signedIn,
    csrf_token: signedIn ? csrfTokenOf(token!) : null
  }, { headers: { "cache-control": "no-store" } })
})

const logout = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const sessions = yield* ConsoleSessions
  const token = request.cookies[SESSION_COOKIE]
  if (token !== undefined) {
    if (request.headers[CSRF_HEADER] !== csrfTokenOf(token)) {
      return errorResponse(csrfRefused("Signing out"))
    }
    yield* sessions.close(token)
  }
  return HttpServerResponse.empty({ status: 204 }).pipe(
    HttpServerResponse.expireCookieUnsafe(SESSION_COOKIE, { path: "/", httpOnly: true, sameSite: "strict" })
  )
})

const answer = <E extends Parameters<typeof errorResponse>[0], R>(
  handler: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
) => Effect.catch(handler, (error: E) => Effect.succeed(errorResponse(error)))

export const SsoRoutes = Layer.mergeAll(
  HttpRouter.add("GET", "/console/sso/login", answer(login)),
  HttpRouter.add("GET", "/console/sso/callback", answer(callback)),
  HttpRouter.add("GET", "/console/sso/status", answer(status)),
  HttpRouter.add("POST", "/console/sso/logout", answer(logout))
)
