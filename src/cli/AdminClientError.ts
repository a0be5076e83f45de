/**
 * Why an admin operation from the command line failed, the same whether it went to the store or through
 * the gateway's admin API. Each reason carries the message to show and knows its exit code: 2 for a
 * mistake in what the user typed, 1 for everything else.
 */
import { Schema } from "effect"
import { ExitCode } from "./ExitCode.ts"

/** The organization or key does not exist; the message is the admin API's ("No organization with id ..."). */
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", {
  message: Schema.String
}) {
  get exitCode(): number {
    return ExitCode.failed
  }
}

/** A value the user gave was refused (a name, an expiry); the message is the admin API's. */
export class InvalidInput extends Schema.TaggedError<InvalidInput>()("InvalidInput", {
  message: Schema.String
}) {
  get exitCode(): number {
    return ExitCode.usage
  }
}

/** The gateway refused the request (a wrong admin token, a conflict). */
export class Refused extends Schema.TaggedError<Refused>()("Refused", {
  message: Schema.String
}) {
  get exitCode(): number {
    return ExitCode.failed
  }
}

/** The embedded store is in use by another process, normally the running gateway. */
export class StoreLocked extends Schema.TaggedError<StoreLocked>()("StoreLocked", {
  message: Schema.String
}) {
  get exitCode(): number {
    return ExitCode.failed
  }
}

/** The store or the gateway could not be reached, or answered something unexpected. */
export class Unavailable extends Schema.TaggedError<Unavailable>()("Unavailable", {
  message: Schema.String
}) {
  get exitCode(): number {
    return ExitCode.failed
  }
}

export class AdminClientError extends Schema.TaggedError<AdminClientError>()("AdminClientError", {
  reason: Schema.Union([NotFound, InvalidInput, Refused, StoreLocked, Unavailable])
}) {
  override get message(): string {
    return this.reason.message
  }

  get exitCode(): number {
    return this.reason.exitCode
  }

  static readonly notFound = (message: string) => new AdminClientError({ reason: new NotFound({ message }) })
  static readonly invalidInput = (message: string) => new AdminClientError({ reason: new InvalidInput({ message }) })
  static readonly refused = (message: string) => new AdminClientError({ reason: new Refused({ message }) })
  static readonly storeLocked = (message: string) => new AdminClientError({ reason: new StoreLocked({ message }) })
  static readonly unavailable = (message: string) => new AdminClientError({ reason: new Unavailable({ message }) })
}
