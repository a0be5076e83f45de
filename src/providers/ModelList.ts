/**
 * A provider's own list of models (`GET /models` and its kin), for `GET /v1/models` when the routing file
 * lists none: one GET with a short timeout, the ids read from the format's list shape. Failures are the
 * caller's to ignore: a provider that cannot list is still routable.
 */
import { Duration, Effect } from "effect"
import { isRecord } from "../kernel/Json.ts"
import { ProviderError, UpstreamBadResponse, UpstreamStatus } from "./ProviderError.ts"
import { reasonFromTransportError } from "./UpstreamReasons.ts"
import type { UpstreamTransport } from "./UpstreamTransport.ts"

/** How long a list may take, however slow the provider. */
export const LIST_TIMEOUT = Duration.seconds(10)

/** The `id`s of a `{data: [{id}]}` list (OpenAI's and Anthropic's shape). */
export const dataIds = (json: unknown): ReadonlyArray<string> => {
  const data = isRecord(json) ? json["data"] : undefined
  return Array.isArray(data)
    ? data.flatMap((model) => (isRecord(model) && typeof model["id"] === "string" ? [model["id"]] : []))
    : []
}

export const listModelIds = (
  transport: UpstreamTransport["Service"],
  { ids, provider, request }: {
    /** The instance's name, for its errors. */
    readonly provider: string
    readonly request: { readonly url: string; readonly headers: Readonly<Record<string, string>> }
    /** The model ids in the upstream's list. */
    readonly ids: (json: unknown) => ReadonlyArray<string>
  }
): Effect.Effect<ReadonlyArray<string>, ProviderError> =>
  Effect.gen(function*() {
    const fail = (reason: ProviderError["reason"]) => new ProviderError({ provider, reason })
    const response = yield* transport.send({
      method: "GET",
      url: request.url,
      headers: request.headers,
      body: "",
      timeouts: { firstByte: LIST_TIMEOUT, idle: LIST_TIMEOUT, total: LIST_TIMEOUT }
    }).pipe(Effect.mapError((error) => fail(reasonFromTransportError(error))))
    const text = yield* response.text.pipe(Effect.mapError((error) => fail(reasonFromTransportError(error))))
    if (response.status < 200 || response.status >= 300) {
      return yield* Effect.fail(fail(new UpstreamStatus({ status: response.status, message: text.slice(0, 200) })))
    }
    try {
      return ids(JSON.parse(text))
    } catch {
      return yield* Effect.fail(fail(new UpstreamBadResponse({ message: "the model list is not JSON" })))
    }
  })
