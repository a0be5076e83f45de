/**
 * The admin API's failures as its document declares them: one class per status, each with the body
 * every route of the gateway fails with, `{"error": {"message", "type", "param", "code"}}`. A class per
 * status lets the server pick the status by the value and the client know the failure by its status.
 */
import { Schema } from "effect"

const ErrorBody = Schema.Struct({
  message: Schema.String,
  type: Schema.String,
  param: Schema.NullOr(Schema.String),
  code: Schema.NullOr(Schema.String)
}).annotate({ identifier: "ErrorBody" })
export type ErrorBody = typeof ErrorBody.Type

const fields = { error: ErrorBody }

export class BadRequest extends Schema.Class<BadRequest>("BadRequest")(fields, {
  httpApiStatus: 400,
  description: "The input was refused; the message names the parameter"
}) {}

export class Unauthorized extends Schema.Class<Unauthorized>("Unauthorized")(fields, {
  httpApiStatus: 401,
  description: "No admin token, or a wrong one"
}) {}

export class Forbidden extends Schema.Class<Forbidden>("Forbidden")(fields, {
  httpApiStatus: 403,
  description: "The caller's role does not allow this (an org admin on another org, a viewer changing)"
}) {}

export class NotFound extends Schema.Class<NotFound>("NotFound")(fields, {
  httpApiStatus: 404,
  description: "No such organization, key, tool or request"
}) {}

export class Conflict extends Schema.Class<Conflict>("Conflict")(fields, { httpApiStatus: 409 }) {}

export class PayloadTooLarge extends Schema.Class<PayloadTooLarge>("PayloadTooLarge")(fields, {
  httpApiStatus: 413,
  description: "The body is over the gateway's limit"
}) {}

export class InternalError extends Schema.Class<InternalError>("InternalError")(fields, { httpApiStatus: 500 }) {}

export class StoreUnavailable extends Schema.Class<StoreUnavailable>("StoreUnavailable")(fields, {
  httpApiStatus: 503,
  description: "The store cannot be reached; retry shortly"
}) {}

/** Every failure an admin route may answer with. */
export const ADMIN_API_ERRORS = [
  BadRequest,
  Forbidden,
  NotFound,
  Conflict,
  PayloadTooLarge,
  InternalError,
  StoreUnavailable
]
export type AdminApiError =
  | BadRequest
  | Unauthorized
  | Forbidden
  | NotFound
  | Conflict
  | PayloadTooLarge
  | InternalError
  | StoreUnavailable

const BY_STATUS: Readonly<Record<number, new(fields: { readonly error: ErrorBody }) => AdminApiError>> = {
  400: BadRequest,
  401: Unauthorized,
  403: Forbidden,
  404: NotFound,
  409: Conflict,
  413: PayloadTooLarge,
  503: StoreUnavailable
}

/** The declared failure for a status and body; a status the API does not declare is an internal error. */
export const adminApiError = (status: number, error: ErrorBody): AdminApiError =>
  new (BY_STATUS[status] ?? InternalError)({ error })
