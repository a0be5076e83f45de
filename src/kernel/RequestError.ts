/**
 * What is wrong with a client's request: its body, a field, its route or the model it addresses.
 * Every reason maps to a 4xx at the edge (see `ErrorResponse.ts`); none is retryable as sent.
 */
import { Schema } from "effect"

/** One field failed validation; `param` is its dotted path, `message` says why. */
export class InvalidField extends Schema.TaggedError<InvalidField>()("InvalidField", {
  param: Schema.String,
  message: Schema.String,
  code: Schema.optionalKey(Schema.String)
}) {}

export class InvalidJson extends Schema.TaggedError<InvalidJson>()("InvalidJson", {
  message: Schema.String
}) {}

export class BodyTooLarge extends Schema.TaggedError<BodyTooLarge>()("BodyTooLarge", {
  limitBytes: Schema.Number
}) {}

/** The model's author id is not routed to any provider. */
export class ModelNotFound extends Schema.TaggedError<ModelNotFound>()("ModelNotFound", {
  model: Schema.String
}) {}

export class RouteNotFound extends Schema.TaggedError<RouteNotFound>()("RouteNotFound", {
  method: Schema.String,
  path: Schema.String
}) {}

export class MethodNotAllowed extends Schema.TaggedError<MethodNotAllowed>()("MethodNotAllowed", {
  method: Schema.String,
  path: Schema.String,
  allowed: Schema.Array(Schema.String)
}) {}

/** `svc_tool_ids` names tools the caller may not use; each id with why. */
export class InvalidSvcToolIds extends Schema.TaggedError<InvalidSvcToolIds>()("InvalidSvcToolIds", {
  invalid: Schema.Array(Schema.Struct({ id: Schema.String, why: Schema.String }))
}) {}

/** `svc_pending_id` is unknown, expired, or another organization's or key's. */
export class InvalidSvcPendingId extends Schema.TaggedError<InvalidSvcPendingId>()("InvalidSvcPendingId", {
  id: Schema.String
}) {}

export class RequestError extends Schema.TaggedError<RequestError>()("RequestError", {
  reason: Schema.Union([
    InvalidField,
    InvalidJson,
    BodyTooLarge,
    ModelNotFound,
    RouteNotFound,
    MethodNotAllowed,
    InvalidSvcToolIds,
    InvalidSvcPendingId
  ])
}) {
  static readonly invalidField = (param: string, message: string, code?: string) =>
    new RequestError({ reason: new InvalidField(code === undefined ? { param, message } : { param, message, code }) })
}
