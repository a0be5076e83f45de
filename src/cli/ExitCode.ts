/** The CLI's exit codes, the usual ones: 0 done, 1 failed, 2 a mistake in what was typed. */
export const ExitCode = {
  ok: 0,
  failed: 1,
  usage: 2
} as const
