/**
 * The last day a new key or personal access token works, as a date box of the form's fields; empty for
 * never. `endOfDay` (Format.ts) turns the day into the API's instant.
 */
export const ExpiryField = (props: {
  readonly id: string
  readonly value: string
  readonly onChange: (date: string) => void
}) => (
  <div>
    <label for={props.id}>Expires after (optional)</label>
    <input
      id={props.id}
      type="date"
      value={props.value}
      onInput={(event) => props.onChange(event.currentTarget.value)}
    />
  </div>
)
