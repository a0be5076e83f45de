/**
 * An organization's budget alerts: the webhook and the shares of a dollar budget that post to it (as
 * percentages, the way people say them), and the latest events with how their delivery went. A viewer
 * of the org reads the settings; its admins change them.
 */
import { useState } from "preact/hooks"
import { useAccess } from "../Access.ts"
import { type AlertSettings, api, type BudgetAlert, type Org } from "../Api.ts"
import { DataTable } from "./DataTable.tsx"
import { time } from "./Format.ts"
import { microsOf } from "./Money.ts"
import { type Message, Notice } from "./Notice.tsx"
import { Usd } from "./UsdFigure.tsx"
import { useAction, useLoad } from "./useLoad.ts"

const percent = (share: number) => `${Math.round(share * 1000) / 10} %`

/** `50, 80, 100` as shares of the budget, or a message saying what is wrong. */
export const parseShares = (text: string): ReadonlyArray<number> | string => {
  const parts = text.split(",").map((part) => part.trim().replace(/%$/, "").trim()).filter((part) => part !== "")
  if (parts.length === 0) return "Give at least one percentage, such as 50, 80, 100."
  const shares = parts.map((part) => Number(part) / 100)
  return parts.every((part) => /^\d+(\.\d+)?$/.test(part)) && shares.every((share) => share > 0 && share <= 1)
    ? shares
    : "Each percentage must be above 0 and at most 100."
}

const whose = (alert: BudgetAlert) => alert.key_id === null ? "the organization" : <code>{alert.key_id}</code>

const delivery = (alert: BudgetAlert) =>
  alert.delivery.status === "delivered"
    ? `delivered${alert.delivery.attempts > 1 ? ` (attempt ${alert.delivery.attempts})` : ""}`
    : `${alert.delivery.status === "failed" ? "failed" : "pending"} after ${alert.delivery.attempts} attempt${
      alert.delivery.attempts === 1 ? "" : "s"
    }${alert.delivery.last_error === null ? "" : `: ${alert.delivery.last_error}`}`

export const BudgetAlertsPanel = (props: { readonly org: Org; readonly reload: () => Promise<void> }) => {
  const alerts = props.org.alerts
  const [url, setUrl] = useState(alerts?.webhook_url ?? "")
  const [shares, setShares] = useState((alerts?.thresholds ?? [0.5, 0.8, 1]).map((t) => t * 100).join(", "))
  const [message, setMessage] = useState<Message | null>(null)
  const events = useLoad(() => api.alerts(props.org.id), [props.org.id])
  const { busy, run } = useAction()
  const changes = useAccess().administers(props.org.id)

  const save = async (next: AlertSettings | null) => {
    const result = await run(() => api.setAlerts(props.org.id, next))
    setMessage(
      result.ok
        ? {
          kind: "info",
          text: result.value.alerts === null
            ? "Budget alerts are off."
            : `Budget alerts at ${
              result.value.alerts.thresholds.map(percent).join(", ")
            } go to ${result.value.alerts.webhook_url}.`
        }
        : { kind: "error", text: result.error }
    )
    await props.reload()
  }

  const submit = async (event: Event) => {
    event.preventDefault()
    const parsed = parseShares(shares)
    if (typeof parsed === "string") return setMessage({ kind: "error", text: parsed })
    await save({ webhook_url: url.trim(), thresholds: parsed })
  }

  return (
    <div class="card">
      <h2>Budget alerts</h2>
      <p class="muted">
        When a key's or the organization's spend crosses a share of a dollar budget (set in the limits), the gateway
        posts one <code>budget.threshold</code> event to the webhook.
      </p>
      <Notice message={message} onDismiss={() => setMessage(null)} />
      {!changes ?
        (
          <p data-alerts="settings">
            {alerts === null
              ? "Budget alerts are off."
              : (
                <>
                  At {alerts.thresholds.map(percent).join(", ")} of a budget, to <code>{alerts.webhook_url}</code>.
                </>
              )}
          </p>
        ) :
        (
          <form class="inline-form" onSubmit={submit}>
            <label for="alert-webhook">Webhook URL</label>
            <input
              id="alert-webhook"
              type="url"
              required
              placeholder="https://hooks.example.com/svc"
              value={url}
              onInput={(event) => setUrl(event.currentTarget.value)}
            />
            <label for="alert-shares">At (% of the budget)</label>
            <input id="alert-shares" value={shares} onInput={(event) => setShares(event.currentTarget.value)} />
            <button type="submit" class="primary" disabled={busy}>Save alerts</button>
            {alerts === null ?
              null :
              <button type="button" disabled={busy} onClick={() => void save(null)}>Turn alerts off</button>}
          </form>
        )}
      <h3>Latest alerts</h3>
      {events.error !== null
        ? <p role="alert">{events.error}</p>
        : (events.data ?? []).length === 0
        ? <p>{events.loading ? "Loading…" : "No budget alert yet."}</p>
        : (
          <DataTable
            label="Budget alerts"
            caption="Budget alerts"
            columns={["When", "Budget of", "Period", "Crossed", "Spent", "Limit", "Delivery"]}
          >
            {(events.data ?? []).map((alert) => (
              <tr key={alert.id}>
                <td title={alert.at}>{time(alert.at)}</td>
                <td>{whose(alert)}</td>
                <td>{alert.period}</td>
                <td class="num">{percent(alert.threshold)}</td>
                <td class="num">
                  <Usd micros={microsOf(alert.spent_usd)} />
                </td>
                <td class="num">
                  <Usd micros={microsOf(alert.limit_usd)} />
                </td>
                <td>{delivery(alert)}</td>
              </tr>
            ))}
          </DataTable>
        )}
    </div>
  )
}
