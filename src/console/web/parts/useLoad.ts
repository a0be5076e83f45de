/**
 * Loads what a page shows and keeps it with its error: a failed load leaves the last good data on the
 * page with the error beside it, and `reload` tries again.
 */
import { useCallback, useEffect, useRef, useState } from "preact/hooks"

export interface Loaded<A> {
  readonly data: A | undefined
  readonly error: string | null
  readonly loading: boolean
  readonly reload: () => Promise<void>
}

export const useLoad = <A>(load: () => Promise<A>, deps: ReadonlyArray<unknown>): Loaded<A> => {
  const [data, setData] = useState<A | undefined>(undefined)
  const [error, setError] = useState<string | null>(null)
  const [loading, setLoading] = useState(true)
  // an answer to an older load (the org changed meanwhile) must not overwrite a newer one
  const generation = useRef(0)

  const reload = useCallback(async () => {
    const mine = ++generation.current
    setLoading(true)
    try {
      const result = await load()
      if (mine !== generation.current) return
      setData(result)
      setError(null)
    } catch (cause) {
      if (mine !== generation.current) return
      setError(cause instanceof Error ? cause.message : String(cause))
    } finally {
      if (mine === generation.current) setLoading(false)
    }
  }, deps)

  useEffect(() => {
    void reload()
  }, [reload])

  return { data, error, loading, reload }
}

/** Runs an action and reports how it went; `busy` disables the buttons meanwhile. */
export const useAction = () => {
  const [busy, setBusy] = useState(false)
  const run = useCallback(
    async <A>(action: () => Promise<A>): Promise<{ ok: true; value: A } | { ok: false; error: string }> => {
      setBusy(true)
      try {
        return { ok: true, value: await action() }
      } catch (cause) {
        return { ok: false, error: cause instanceof Error ? cause.message : String(cause) }
      } finally {
        setBusy(false)
      }
    },
    []
  )
  return { busy, run }
}
