/**
 * A fake OpenTelemetry collector for tests: a `node:http` server on 127.0.0.1 that records every OTLP
 * export (path, content type, headers, body) and answers 200. JSON bodies (`http/json`) are read into
 * spans; protobuf bodies are kept as bytes.
 */
import { createServer } from "node:http"
import type { IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"

export interface CollectedSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId: string | undefined
  readonly name: string
  readonly kind: number
  readonly attributes: Readonly<Record<string, unknown>>
  /** `service.name` of the resource the span came with. */
  readonly serviceName: string | undefined
}

export interface Export {
  readonly path: string
  readonly contentType: string
  readonly headers: IncomingHttpHeaders
  readonly body: Buffer
}

export interface FakeCollector {
  readonly url: string
  readonly exports: ReadonlyArray<Export>
  /** Every span of every JSON export so far. */
  readonly spans: () => ReadonlyArray<CollectedSpan>
  readonly close: () => Promise<void>
}

interface KeyValue {
  readonly key: string
  readonly value: {
    readonly stringValue?: string
    readonly intValue?: string | number
    readonly boolValue?: boolean
    readonly doubleValue?: number
  }
}

const attributes = (list: ReadonlyArray<KeyValue> | undefined): Record<string, unknown> =>
  Object.fromEntries((list ?? []).map(({ key, value }) => [
    key,
    value.stringValue ?? (value.intValue === undefined ? undefined : Number(value.intValue)) ?? value.boolValue ??
      value.doubleValue
  ]))

interface TraceJson {
  readonly resourceSpans?: ReadonlyArray<{
    readonly resource?: { readonly attributes?: ReadonlyArray<KeyValue> }
    readonly scopeSpans?: ReadonlyArray<{
      readonly spans?: ReadonlyArray<{
        readonly traceId: string
        readonly spanId: string
        readonly parentSpanId?: string
        readonly name: string
        readonly kind: number
        readonly attributes?: ReadonlyArray<KeyValue>
      }>
    }>
  }>
}

const spansOf = (body: Buffer): Array<CollectedSpan> => {
  const json = JSON.parse(body.toString("utf8")) as TraceJson
  return (json.resourceSpans ?? []).flatMap((resourceSpan) => {
    const serviceName = attributes(resourceSpan.resource?.attributes)["service.name"]
    return (resourceSpan.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId === "" ? undefined : span.parentSpanId,
        name: span.name,
        kind: span.kind,
        attributes: attributes(span.attributes),
        serviceName: typeof serviceName === "string" ? serviceName : undefined
      }))
    )
  })
}

export const startFakeCollector = async (): Promise<FakeCollector> => {
  const exports: Array<Export> = []
  const server = createServer((req, res) => {
    const parts: Array<Buffer> = []
    req.on("data", (part: Buffer) => parts.push(part))
    req.on("end", () => {
      exports.push({
        path: req.url ?? "",
        contentType: req.headers["content-type"] ?? "",
        headers: req.headers,
        body: Buffer.concat(parts)
      })
      res.writeHead(200, { "content-type": "application/json" })
      res.end("{}")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    exports,
    spans: () => exports.filter((e) => e.contentType.startsWith("application/json")).flatMap((e) => spansOf(e.body)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
