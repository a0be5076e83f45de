/** Polls `check` every 25 ms until it holds; fails naming `what` after 10 s. A wait on a condition, not a sleep. */
export const until = async (what: string, check: () => boolean | Promise<boolean>): Promise<void> => {
  for (let i = 0; i < 400; i++) {
    if (await check()) return
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`timed out waiting for: ${what}`)
}
