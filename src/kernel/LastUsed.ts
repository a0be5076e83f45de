/**
 * Keys in the order they were last used, each with when: those idle since a time are taken without
 * reading the rest (a `Map` iterates in insertion order, and a use moves its key to the end).
 */
export class LastUsed<K> {
  readonly #at = new Map<K, number>()

  get size(): number {
    return this.#at.size
  }

  use(key: K, now: number): void {
    this.#at.delete(key)
    this.#at.set(key, now)
  }

  forget(key: K): void {
    this.#at.delete(key)
  }

  /** Removes and returns the keys last used at or before `cutoff`, the longest idle first. */
  takeIdle(cutoff: number): Array<K> {
    const idle: Array<K> = []
    for (const [key, at] of this.#at) {
      if (at > cutoff) break
      idle.push(key)
    }
    for (const key of idle) this.#at.delete(key)
    return idle
  }
}
