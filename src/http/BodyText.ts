/**
 * A request body's text, read as the platform reads it but without its cache. `HttpServerRequest.text`
 * runs the read through `Effect.cached` under `Effect.runSync`, so that a body read twice is read once:
 * two fibers and a scheduler more on every request, where the gateway reads each body once. Leaving
 * them out took 6 % off the gateway's CPU a whole answer at c=16 and 9 % off a streamed one
 * (`bench/cpu.ts`, two processes of each build; docs/performance-history.md).
 *
 * The read itself is the platform's (`NodeStream.toArrayBuffer` with the server's settings: a body over
 * the limit fails and the rest is drained for the connection's sake, not destroyed; `TextDecoder`, which
 * drops a byte-order mark), and so are its errors. The platform's reader stays where it does more: a
 * client waiting for `100 Continue` (the platform sends it when the body is first read), a body the
 * platform has already read, a request that is not a Node stream.
 */
import { NodeHttpServerRequest, NodeStream } from "@effect/platform-node"
import { type ByteSize, Effect } from "effect"
import { HttpServerError, type HttpServerRequest } from "effect/http"
import { Readable } from "node:stream"

const decoder = new TextDecoder()

/** The body as text, at most `maxBytes` (`HttpIncomingMessage.MaxBodySize`); read it once per request. */
export const bodyText = (
  request: HttpServerRequest.HttpServerRequest,
  maxBytes: ByteSize.ByteSize | undefined
): Effect.Effect<string, HttpServerError.HttpServerError> => {
  const source = NodeHttpServerRequest.toIncomingMessage(request)
  if (!(source instanceof Readable) || source.readableDidRead || request.headers["expect"] !== undefined) {
    return request.text
  }
  return NodeStream.toArrayBuffer(() => source, {
    maxBytes,
    destroyOnOverflow: false,
    onError: (cause) =>
      new HttpServerError.HttpServerError({
        reason: new HttpServerError.RequestParseError({
          request,
          reason: cause instanceof NodeStream.MaxBytesError ? "BodyTooLarge" : "Parse",
          cause
        })
      })
  }).pipe(Effect.map((bytes) => decoder.decode(bytes)))
}
