/**
 * The checks of admin input that a schema cannot make alone: an expiry in the future, installed tool
 * ids, an org update that changes something, an alert webhook on a host the operator allows. The admin API's handlers run them (for the CLI too).
 */
import { Effect } from "effect"
import { GatewayConfig } from "../Config.ts"
import { DEFAULT_THRESHOLDS, normalThresholds, webhookHostAllowed } from "../kernel/AlertSettings.ts"
import { decodeInput } from "../kernel/DecodeInput.ts"
import { RequestError } from "../kernel/RequestError.ts"
import type { OrgChanges } from "../orgs/Orgs.ts"
import type { Catalogue } from "../tools/ToolCatalogue.ts"
import { OrgUpdate } from "./AdminPayloads.ts"

/** `expires_at` as a Date: an ISO 8601 date-time in the future, or null for a key that never expires. */
export const parseExpiry = (value: string | null | undefined): Effect.Effect<Date | null, RequestError> => {
  if (value === null || value === undefined) return Effect.succeed(null)
  const date = new Date(value)
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(date.getTime())) {
    return Effect.fail(
      RequestError.invalidField(
        "expires_at",
        "Invalid value for 'expires_at': expected an ISO 8601 date-time such as 2030-01-31T00:00:00Z."
      )
    )
  }
  if (date.getTime() <= Date.now()) {
    return Effect.fail(
      RequestError.invalidField("expires_at", "Invalid value for 'expires_at': the time is in the past.")
    )
  }
  return Effect.succeed(date)
}

/**
 * `allowed_svc_tool_ids` of a key: may only name shared tools its org can have (`catalogue`); duplicates
 * are dropped. `null` allows every activated tool and `undefined` (not given) leaves it as it is; both
 * pass through unchanged.
 */
export const checkAllowedTools = (
  ids: ReadonlyArray<string> | null | undefined,
  catalogue: Catalogue
): Effect.Effect<Array<string> | null | undefined, RequestError> => {
  if (ids === null || ids === undefined) return Effect.succeed(ids)
  const unknown = ids.filter((id) => catalogue.get(id) === undefined)
  if (unknown.length > 0) {
    return RequestError.invalidField(
      "allowed_svc_tool_ids",
      `Invalid value for 'allowed_svc_tool_ids': ${
        unknown.map((id) => `'${id}'`).join(", ")
      } is not a shared tool of this organization (GET /admin/v1/orgs/{org_id}/svc-tools lists them).`
    )
  }
  return Effect.succeed([...new Set(ids)])
}

/** An org update as the admin API and the CLI read it; nothing to change is a 400 too. */
export const parseOrgUpdate = (body: unknown): Effect.Effect<OrgChanges, RequestError, GatewayConfig> =>
  Effect.gen(function*() {
    const input = yield* decodeInput(OrgUpdate)(body)
    if (
      input.log_content === undefined && input.compression === undefined && input.limits === undefined &&
      input.alerts === undefined
    ) {
      return yield* RequestError.invalidField(
        "body",
        "Nothing to change: send 'log_content' (true or false), 'compression' (off, shadow, safe, aggressive, or null for the gateway's level), 'limits' ({rpm, tpm, tokens_per_day, tokens_per_month, usd_per_day, usd_per_month}), 'alerts' ({webhook_url, thresholds} or null), or several."
      )
    }
    const alerts = input.alerts
    if (alerts !== undefined && alerts !== null) {
      const allowed = (yield* GatewayConfig).alertWebhookHosts
      if (!webhookHostAllowed(alerts.webhook_url, allowed)) {
        return yield* RequestError.invalidField(
          "alerts.webhook_url",
          `Invalid value for 'alerts.webhook_url': the gateway's operator lets alert webhooks reach only ${
            allowed!.join(", ")
          } (GATEWAY_ALERT_WEBHOOK_HOSTS).`
        )
      }
    }
    return {
      ...(input.limits === undefined ? {} : { limits: input.limits }),
      ...(input.log_content === undefined ? {} : { logContent: input.log_content }),
      ...(input.compression === undefined ? {} : { compression: input.compression }),
      ...(alerts === undefined ? {} : {
        alerts: alerts === null ? null : {
          webhook_url: alerts.webhook_url,
          thresholds: normalThresholds(alerts.thresholds ?? DEFAULT_THRESHOLDS)
        }
      })
    }
  })
