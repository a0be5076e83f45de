/** The circuit breakers of the gateway's upstream targets on this instance (owners: it is gateway-wide). */
import { api } from "../Api.ts"
import { useLoad } from "./useLoad.ts"

export const CircuitBreakers = () => {
  const circuits = useLoad(() => api.circuits(), [])
  return (
    <div class="card">
      <h2>Circuit breakers</h2>
      {circuits.error !== null
        ? <p role="alert">{circuits.error}</p>
        : (circuits.data ?? []).length === 0
        ? <p>Every upstream target is being called: no circuit has opened on this instance.</p>
        : (
          <ul>
            {(circuits.data ?? []).map((circuit) => (
              <li key={circuit.target}>
                <code>{circuit.target}</code>: {circuit.state === "open"
                  ? "open (skipped until its cool-down ends)"
                  : circuit.state === "half_open"
                  ? "half open (one probe call goes through)"
                  : "closed"}
              </li>
            ))}
          </ul>
        )}
    </div>
  )
}
