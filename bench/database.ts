/**
 * PostgreSQL databases of the bench's own, empty at the start of a run and dropped at its end. The
 * request log keeps every row for 30 days: in a shared database it grows with every run (to a gigabyte
 * here after a few sessions of tests and benches), and the log's cost grows with its indexes, so the
 * figures would drift from one run to the next. Each gateway of a run gets a database of its own: an older
 * build (a baseline) cannot write its log to tables a newer build migrated, and gateways sharing one table
 * would each pay for the other's index growth. Databases left by a run that was killed are dropped by the
 * next one; those of a run still going (two benches at once) are left alone.
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { connect } from "node:net"

const PREFIX = "svc_gateway_bench_"

/** Whether `pid` names a live process (one owned by another user counts: it is alive). */
const processAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/**
 * Whether a bench database was left by a run that is gone: its name carries the pid of the run that made
 * it, and a name without one is from an older bench, never still in use.
 */
export const isStale = (datname: string, alive: (pid: number) => boolean = processAlive): boolean => {
  if (!datname.startsWith(PREFIX)) return false
  const pid = /^(\d+)_/.exec(datname.slice(PREFIX.length))?.[1]
  return pid === undefined || !alive(Number(pid))
}

const onServer = <A>(url: string, use: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>): Promise<A> =>
  Effect.runPromise(
    Effect.flatMap(SqlClient.SqlClient, use).pipe(
      Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })),
      Effect.scoped
    )
  )

const withDatabase = (url: string, name: string): string => {
  const next = new URL(url)
  next.pathname = `/${name}`
  return next.toString()
}

export interface BenchDatabase {
  readonly url: string
  readonly drop: () => Promise<void>
}

export interface BenchDatabases {
  /** A new, empty database for `label` (letters, digits, `-` and `_`). */
  readonly create: (label: string) => Promise<string>
  /** Drops every database `create` made. */
  readonly drop: () => Promise<void>
}

/**
 * Databases next to the one `url` names (which only has to exist and accept the connection), after
 * dropping those a killed run left behind.
 */
export const benchDatabases = async (url: string): Promise<BenchDatabases> => {
  await onServer(url, (sql) =>
    Effect.gen(function*() {
      const stale = yield* sql<
        { readonly datname: string }
      >`SELECT datname FROM pg_database WHERE datname LIKE ${`${PREFIX}%`}`
      for (const { datname } of stale.filter(({ datname }) => isStale(datname))) {
        yield* sql.unsafe(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`)
      }
    }))
  const made: Array<string> = []
  return {
    create: async (label) => {
      const name = `${PREFIX}${process.pid}_${label.replace(/[^A-Za-z0-9_]/g, "_")}`
      await onServer(url, (sql) => sql.unsafe(`CREATE DATABASE "${name}"`))
      made.push(name)
      return withDatabase(url, name)
    },
    drop: () =>
      onServer(
        url,
        (sql) =>
          Effect.forEach(made.splice(0), (name) => sql.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`), {
            discard: true
          })
      )
  }
}

/** One new database next to the one `url` names. */
export const freshDatabase = async (url: string): Promise<BenchDatabase> => {
  const databases = await benchDatabases(url)
  return { url: await databases.create("main"), drop: databases.drop }
}

/**
 * The store the gateway is measured on: PostgreSQL, as a team deploys it, when `BENCH_DATABASE_URL`
 * (default: the local server on 127.0.0.1:5432) answers, in a database of each variant's own
 * (`bench/database.ts`); else, or with `BENCH_DATABASE_URL=off`, the embedded store (SQLite) that
 * `npm start` uses by default.
 */
export const benchStore = async (): Promise<{
  readonly postgres: boolean
  readonly envFor: (variant: string) => Promise<Readonly<Record<string, string>>>
  readonly drop: () => Promise<void>
}> => {
  const embedded = { postgres: false, envFor: () => Promise.resolve({}), drop: () => Promise.resolve() }
  const url = process.env["BENCH_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"
  if (url === "off") return embedded
  const { hostname, port } = new URL(url)
  const reachable = await new Promise<boolean>((resolve) => {
    const socket = connect({ host: hostname, port: Number(port || 5432) })
    socket.setTimeout(1_000)
    socket.once("connect", () => {
      socket.destroy()
      resolve(true)
    })
    socket.once("error", () => resolve(false))
    socket.once("timeout", () => {
      socket.destroy()
      resolve(false)
    })
  })
  if (!reachable) return embedded
  const databases = await benchDatabases(url)
  return {
    postgres: true,
    envFor: async (variant) => ({ DATABASE_URL: await databases.create(variant) }),
    drop: databases.drop
  }
}
