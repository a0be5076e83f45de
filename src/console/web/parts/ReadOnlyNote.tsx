/**
 * Why a page of an organization offers no changes: the signed-in person only reads it (a viewer), so
 * the forms and buttons that change it are left out. Nothing for its admins and the owners.
 */
import { useAccess } from "../Access.ts"
import type { Org } from "../Api.ts"

export const ReadOnlyNote = (props: { readonly org: Org; readonly what: string }) =>
  useAccess().administers(props.org.id) ? null : (
    <p class="hint read-only">
      Read only: you are a viewer of {props.org.name}, so {props.what}{" "}
      can be changed by its admins and the gateway's owners, not by you.
    </p>
  )
