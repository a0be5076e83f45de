/**
 * A client's User-Agent as a person names it: `claude-cli/2.1.328 (external, cli)` reads "Claude Code
 * 2.1.328", `codex_cli_rs/0.169.0 (Mac OS 15.5.0; arm64)` reads "Codex 0.169.0". The coding agents are
 * why sessions exist, so they get their own names; any other client reads as its first product token
 * (`python-httpx/0.28.1`), the full string staying in the tooltip.
 */

const KNOWN: ReadonlyArray<readonly [RegExp, string]> = [
  [/^claude-cli\/(\S+)/i, "Claude Code"],
  // Codex names its builds codex_cli_rs, codex_exec, codex_vscode...: one client to a person
  [/^codex[\w-]*\/(\S+)/i, "Codex"],
  [/^opencode\/(\S+)/i, "OpenCode"],
  [/^aider\/(\S+)/i, "Aider"]
]

export const clientName = (userAgent: string | null): string => {
  if (userAgent === null || userAgent.trim() === "") return "–"
  for (const [pattern, name] of KNOWN) {
    const version = pattern.exec(userAgent)?.[1]
    if (version !== undefined) return `${name} ${version}`
  }
  return userAgent.trim().split(/\s+/)[0] ?? userAgent
}
