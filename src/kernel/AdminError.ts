/** Failures of admin operations on stored records (orgs, keys), shared by the admin API and the CLI. */
import { Schema } from "effect"

export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", {
  entity: Schema.String,
  id: Schema.String
}) {}

export class Conflict extends Schema.TaggedError<Conflict>()("Conflict", {
  message: Schema.String
}) {}

/** The caller's role does not allow the operation (403); the message says what it lacks. */
export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", {
  message: Schema.String
}) {}

export class AdminError extends Schema.TaggedError<AdminError>()("AdminError", {
  reason: Schema.Union([NotFound, Conflict, Forbidden])
}) {
  static readonly notFound = (entity: string, id: string) => new AdminError({ reason: new NotFound({ entity, id }) })
}
