/**
 * The gateway's own request fields, in every inbound format: acted on at the gateway (shared tools, a
 * pending turn, tags), never sent to an upstream.
 */
export const GATEWAY_FIELDS: ReadonlySet<string> = new Set(["svc_tool_ids", "svc_pending_id", "tags"])

/**
 * The body a native upstream starts from: the object as received when it holds none of the gateway's
 * fields (nearly always), else a copy without them, since the adapters send the body's keys as they are
 * and the vendors' APIs refuse keys they do not know.
 */
export const withoutGatewayFields = (
  raw: Readonly<Record<string, unknown>>
): Readonly<Record<string, unknown>> => {
  let own = false
  for (const key in raw) own ||= GATEWAY_FIELDS.has(key)
  if (!own) return raw
  const body: Record<string, unknown> = {}
  for (const key in raw) if (!GATEWAY_FIELDS.has(key)) body[key] = raw[key]
  return body
}
