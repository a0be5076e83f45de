/** A request's HTTP status as a badge: failed (400 and up) or answered. */
export const StatusBadge = (props: { readonly status: number }) => (
  <span class={props.status >= 400 ? "badge badge-revoked" : "badge badge-active"}>{props.status}</span>
)
