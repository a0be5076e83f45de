/**
 * MCP servers as sources of shared tools. Each server's tools become shared tools named
 * `svc_mcp_<server>_<tool>` (vetted first, `McpToolNames.ts`), pushed into the `ToolCatalogue`: the
 * operator's servers (the routing file's `mcp_servers`, remote or local stdio) for every org, an org's
 * registered servers (`McpServers.ts`) for that org alone. From there they are activated, allow-listed,
 * hydrated and run by the tool loop like any plugin, and listed by `/mcp`.
 *
 * A server is connected on first use and kept; its tool list is asked when it is added, at start, on
 * the admin API's refresh, and whenever it says its list changed. The last list is kept (in the store
 * for an org's servers), so a server that is down keeps its tools offered and each call fails as a tool
 * error the model reads, never the request; the next call connects again. Every instance does this for
 * itself; a server added or removed through one instance reaches the others through the change feed.
 */
import { Context, Duration, Effect, Layer, Scope } from "effect"
import type { SqlError } from "effect/sql"
import { GatewayConfig } from "../Config.ts"
import { AdminError } from "../kernel/AdminError.ts"
import { webhookHostAllowed } from "../kernel/AlertSettings.ts"
import { RequestError } from "../kernel/RequestError.ts"
import { loadRouting } from "../providers/RoutingConfig.ts"
import { ChangeFeed } from "../store/ChangeFeed.ts"
import { SecretSeal } from "../store/SecretSeal.ts"
import { ToolCatalogue } from "../tools/ToolCatalogue.ts"
import { type Authorizations, makeAuthorizations } from "./McpAuthorizations.ts"
import { connectMcp, errorText, type McpConnection, type McpTarget } from "./McpConnection.ts"
import { NeedsAuthorization, oauthProvider, type OAuthRecord } from "./McpOAuth.ts"
import { type McpServerInfo, McpServers, type StoredMcpServer } from "./McpServers.ts"
import { mcpTool, NOT_AUTHORIZED, onceMore, type ServerLink } from "./McpTool.ts"
import { type RemoteTool, serverNameProblem, type VettedTool, vetTools } from "./McpToolNames.ts"

interface Entry {
  readonly name: string
  /** Null for the operator's servers, which every org can use. */
  readonly orgId: string | null
  /** The store's id of an org's server. */
  readonly serverId: string | null
  /** Undefined when its sealed headers cannot be opened (another `GATEWAY_SECRET_KEY`): every call says so. */
  readonly target: McpTarget | undefined
  /** For a server authorized with OAuth: its record as kept (`McpOAuth.ts`); undefined: never authorized. */
  readonly oauth: { record: OAuthRecord | undefined } | undefined
  connection: Promise<McpConnection> | undefined
  removed: boolean
}

/** What an org admin registers. */
export interface NewMcpServer {
  /** Authorized with OAuth by an org admin (`authorize`), rather than by headers. */
  readonly oauth: boolean
  readonly name: string
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
}

/** Why an org's server is not offered: a server of the routing file has its name. */
const SHADOWED = (name: string) =>
  `The routing file now has an MCP server named '${name}': that one is offered; register this one under another name.`

export class McpSources extends Context.Service<McpSources, {
  /** Stores and offers a server (with no tools until `refresh` asks it). */
  readonly register: (
    orgId: string,
    input: NewMcpServer
  ) => Effect.Effect<McpServerInfo, SqlError.SqlError | AdminError | RequestError>
  readonly unregister: (orgId: string, serverId: string) => Effect.Effect<McpServerInfo, SqlError.SqlError | AdminError>
  /** Asks the server for its tools again now; the answer (or why none came) is in what it returns. */
  readonly refresh: (
    orgId: string,
    serverId: string
  ) => Effect.Effect<McpServerInfo, SqlError.SqlError | AdminError | RequestError>
  readonly list: (orgId: string) => Effect.Effect<ReadonlyArray<McpServerInfo>, SqlError.SqlError>
  readonly authorize: Authorizations["authorize"]
  readonly completeAuthorization: Authorizations["completeAuthorization"]
}>()("svc-gateway/McpSources") {
  static readonly layer = Layer.effect(
    McpSources,
    Effect.gen(function*() {
      const config = yield* GatewayConfig
      const servers = yield* McpServers
      const catalogue = yield* ToolCatalogue
      const seal = yield* SecretSeal
      const feed = yield* ChangeFeed
      const scope = yield* Effect.scope
      const context = yield* Effect.context<never>()
      const runFork = Effect.runForkWith(context)
      const timeoutMs = Duration.toMillis(config.connectTimeout)
      const entries = new Map<string, Entry>()

      const connection = (entry: Entry): Promise<McpConnection> => {
        if (entry.target === undefined) {
          return Promise.reject(
            new Error("its credentials were sealed under another GATEWAY_SECRET_KEY; register it again")
          )
        }
        if (entry.oauth !== undefined && entry.oauth.record?.tokens === undefined) {
          return Promise.reject(new NeedsAuthorization(NOT_AUTHORIZED))
        }
        const current = entry.connection
        if (current !== undefined) {
          return current.then((open) => open.closed() ? reconnect(entry) : open, () => reconnect(entry))
        }
        return reconnect(entry)
      }

      const reconnect = (entry: Entry): Promise<McpConnection> => {
        const opening = connectMcp(
          entry.target!,
          (tools) => runFork(publishTools(entry, tools)),
          timeoutMs,
          entry.oauth === undefined ? undefined : oauthProvider({
            record: () => recordOf(entry),
            save: (record) => saveRecord(entry, record)
          })
        )
        entry.connection = opening
        // a failed attempt is forgotten: the next use tries again
        opening.catch(() => {
          if (entry.connection === opening) entry.connection = undefined
        })
        return opening
      }

      const linkOf = (entry: Entry): ServerLink => ({
        name: entry.name,
        connection: () => connection(entry),
        kept: () => entry.connection !== undefined,
        drop: () => drop(entry)
      })

      /** Forgets the entry's connection (closing it): the next use connects anew. */
      const drop = (entry: Entry) => {
        const open = entry.connection
        entry.connection = undefined
        void open?.then((c) => c.close(), () => undefined)
      }

      const offer = (entry: Entry, tools: ReadonlyArray<VettedTool>) =>
        catalogue.setSource(`mcp:${entry.name}`, entry.orgId, tools.map((tool) => mcpTool(linkOf(entry), tool)))

      /** A server's new list: vetted, offered, and kept for the next start. */
      const publishTools = (entry: Entry, listed: ReadonlyArray<RemoteTool>) =>
        Effect.gen(function*() {
          if (entry.removed) return
          const vetted = vetTools(entry.name, listed)
          offer(entry, vetted.tools)
          if (entry.serverId !== null) yield* servers.saveRefresh(entry.serverId, { vetted })
        }).pipe(Effect.catchCause((cause) => Effect.logWarning("could not keep an MCP server's tools", cause)))

      /** Asks the server for its tools; a failure keeps the last list and is recorded. */
      const ask = (entry: Entry) =>
        Effect.tryPromise({
          try: () => onceMore(linkOf(entry), (open) => open.listTools()),
          catch: errorText
        }).pipe(
          Effect.timeout(Duration.millis(timeoutMs * 2)),
          Effect.matchEffect({
            onSuccess: (listed) => publishTools(entry, listed),
            onFailure: (error) =>
              Effect.gen(function*() {
                const message = typeof error === "string" ? error : "it did not answer in time"
                yield* Effect.logWarning("could not list an MCP server's tools").pipe(
                  Effect.annotateLogs({ "svc.mcp.server": entry.name, reason: message })
                )
                if (entry.serverId !== null) {
                  yield* servers.saveRefresh(entry.serverId, { error: message }).pipe(Effect.ignore)
                }
              })
          })
        )

      const close = (entry: Entry) => {
        entry.removed = true
        entries.delete(entry.name)
        catalogue.removeSource(`mcp:${entry.name}`)
        drop(entry)
      }

      /** The entry's OAuth record; an empty one (for this gateway's callback) before the first authorization. */
      const recordOf = (entry: Entry): OAuthRecord => entry.oauth?.record ?? { redirectUrl: "" }

      const saveRecord = (entry: Entry, record: OAuthRecord) => {
        entry.oauth!.record = record
        if (entry.serverId === null || seal.seal === undefined) return Promise.resolve()
        // other instances take the new record (a refresh token may have been rotated)
        return Effect.runPromiseWith(context)(Effect.andThen(
          servers.saveOAuth(entry.serverId, seal.seal(JSON.stringify(record)), record.tokens !== undefined),
          feed.publish(`mcp:${entry.serverId}`)
        ))
      }

      const openRecord = (server: StoredMcpServer): OAuthRecord | undefined => {
        if (server.oauthSealed === null) return undefined
        const opened = seal.open(server.oauthSealed)
        return opened === undefined ? undefined : JSON.parse(opened) as OAuthRecord
      }

      const targetOf = (server: StoredMcpServer): McpTarget | undefined => {
        if (server.headersSealed === null) return { kind: "http", url: server.info.url, headers: {} }
        const opened = seal.open(server.headersSealed)
        return opened === undefined ? undefined : { kind: "http", url: server.info.url, headers: JSON.parse(opened) }
      }

      /** The gateway's entry of an org's server, loaded if need be; undefined when the operator's has its name. */
      const entryOf = (server: StoredMcpServer): Entry | undefined => {
        const found = entries.get(server.info.name)
        if (found === undefined) return load(server)
        return found.serverId === server.info.id ? found : undefined
      }

      /** An org's server as the store has it: its last tools offered at once. */
      const load = (server: StoredMcpServer): Entry => {
        const existing = entries.get(server.info.name)
        if (existing !== undefined) close(existing)
        const entry: Entry = {
          name: server.info.name,
          orgId: server.info.org_id,
          serverId: server.info.id,
          target: targetOf(server),
          oauth: server.info.oauth ? { record: openRecord(server) } : undefined,
          connection: undefined,
          removed: false
        }
        entries.set(entry.name, entry)
        offer(entry, server.tools)
        return entry
      }

      // the operator's servers, from the routing file
      const routing = yield* loadRouting(config.configFile)
      for (const spec of routing.mcpServers) {
        const entry: Entry = {
          name: spec.name,
          orgId: null,
          serverId: null,
          target: spec.target,
          oauth: undefined,
          connection: undefined,
          removed: false
        }
        entries.set(entry.name, entry)
        offer(entry, [])
      }
      for (const server of yield* servers.all) {
        // a name the operator has since given a server of the routing file: the operator's is kept
        if (entries.has(server.info.name)) {
          yield* Effect.logWarning("an org's MCP server is not offered: the routing file has a server of its name")
            .pipe(Effect.annotateLogs({ "svc.mcp.server": server.info.name, "svc.org.id": server.info.org_id }))
          yield* servers.saveRefresh(server.info.id, { error: SHADOWED(server.info.name) }).pipe(Effect.ignore)
          continue
        }
        load(server)
      }
      // asked in the background: a slow or absent server must not hold the gateway's start
      yield* Effect.forkIn(Effect.forEach([...entries.values()], ask, { concurrency: 8, discard: true }), scope)
      yield* Scope.addFinalizer(scope, Effect.sync(() => [...entries.values()].forEach(close)))

      // a change made through another instance
      feed.listen((change) => {
        if (!change.startsWith("mcp:")) return
        const serverId = change.slice(4)
        runFork(
          Effect.gen(function*() {
            const stored = (yield* servers.all).find((server) => server.info.id === serverId)
            const current = [...entries.values()].find((entry) => entry.serverId === serverId)
            if (stored === undefined) {
              if (current !== undefined) close(current)
              return
            }
            // servers are added and removed, never changed, but an OAuth server's tokens are: one already
            // here (maybe this instance's own change, echoed) takes its record as stored
            if (current === undefined) return yield* ask(load(stored))
            if (current.oauth !== undefined) current.oauth.record = openRecord(stored)
          }).pipe(Effect.catchCause((cause) => Effect.logWarning("could not follow an MCP server's change", cause)))
        )
      })

      const badInput = (field: string, message: string) => RequestError.invalidField(field, message)

      const register = Effect.fn("McpSources.register")(function*(orgId: string, input: NewMcpServer) {
        const nameProblem = serverNameProblem(input.name)
        if (nameProblem !== undefined) return yield* badInput("name", nameProblem)
        if (routing.mcpServers.some((spec) => spec.name === input.name)) {
          return yield* badInput("name", `'${input.name}' is the name of an MCP server the operator configured.`)
        }
        let url: URL
        try {
          url = new URL(input.url)
        } catch {
          return yield* badInput("url", `'${input.url}' is not a URL.`)
        }
        if (url.protocol !== "https:" && url.protocol !== "http:") {
          return yield* badInput("url", "An MCP server's URL must be http or https (streamable HTTP).")
        }
        if (!webhookHostAllowed(url.href, config.mcpServerHosts)) {
          return yield* badInput("url", `The host '${url.hostname}' is not in GATEWAY_MCP_SERVER_HOSTS.`)
        }
        const headerNames = Object.keys(input.headers)
        if (input.oauth && headerNames.length > 0) {
          return yield* badInput("headers", "A server authorized with OAuth takes no headers: its tokens are sent.")
        }
        if ((headerNames.length > 0 || input.oauth) && seal.seal === undefined) {
          return yield* badInput(
            input.oauth ? "oauth" : "headers",
            "The gateway cannot keep an MCP server's credentials: its operator has not set GATEWAY_SECRET_KEY."
          )
        }
        const created = yield* servers.create({
          orgId,
          name: input.name,
          url: url.href,
          headerNames,
          headersSealed: headerNames.length === 0 ? null : seal.seal!(JSON.stringify(input.headers)),
          oauth: input.oauth
        })
        // its tools are asked for by `refresh`, outside the change's transaction: a server may be slow
        load(created)
        yield* feed.publish(`mcp:${created.info.id}`)
        return created.info
      })

      const unregister = Effect.fn("McpSources.unregister")(function*(orgId: string, serverId: string) {
        const removed = yield* servers.remove(orgId, serverId)
        const entry = entries.get(removed.info.name)
        if (entry !== undefined) close(entry)
        yield* feed.publish(`mcp:${serverId}`)
        return removed.info
      })

      const refresh = Effect.fn("McpSources.refresh")(function*(orgId: string, serverId: string) {
        const server = yield* servers.get(orgId, serverId)
        const entry = entryOf(server)
        if (entry === undefined) return yield* badInput("server_id", SHADOWED(server.info.name))
        // a new connection: what the server says now, not what an old session remembers
        drop(entry)
        yield* ask(entry)
        return (yield* servers.get(orgId, serverId)).info
      })

      const list = (orgId: string) => Effect.map(servers.list(orgId), (found) => found.map((server) => server.info))

      const { authorize, completeAuthorization } = makeAuthorizations({
        servers,
        timeoutMs,
        handleOf: (server) => {
          const entry = entryOf(server)
          if (entry === undefined) return undefined
          return {
            record: () => entry.oauth?.record,
            save: (record) => saveRecord(entry, record),
            // a new connection with the new tokens, and what the server offers with them
            renew: Effect.suspend(() => {
              drop(entry)
              return ask(entry)
            })
          }
        }
      })

      return McpSources.of({ register, unregister, refresh, list, authorize, completeAuthorization })
    })
  )
}
