/**
 * Types for undici's `Agent` module on its own (`UpstreamTransport.ts` imports it without the rest of
 * undici): the same class the package's index exports.
 */
declare module "undici/lib/dispatcher/agent.js" {
  import type { Agent } from "undici"
  const AgentClass: typeof Agent
  export default AgentClass
}
