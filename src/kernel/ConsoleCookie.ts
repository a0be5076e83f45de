/**
 * How a console signed in by single sign-on is recognised: its session's cookie (HTTP-only, so the
 * page's script never holds the session) and, on every change, the header carrying the session's CSRF
 * token, which only a page of the gateway's own origin can have read (`/console/sso/status`).
 */
export const SESSION_COOKIE = "svc_console_session"
export const CSRF_HEADER = "x-csrf-token"
