/**
 * A Duplex that speaks the PostgreSQL wire protocol to an in-process PGlite, so `@effect/sql-pg`'s
 * real client (and with it one schema, one migrator, one set of queries) runs on embedded Postgres.
 * PGlite is one backend session: use it with a pool of one connection.
 */
import type { PGlite } from "@electric-sql/pglite"
import { Duplex } from "node:stream"

const SSL_REQUEST = 80877103
const CANCEL_REQUEST = 80877102
const TERMINATE = 0x58

export const pgliteDuplex = (db: PGlite) => (): Duplex => {
  let buffer = Buffer.alloc(0)
  let startupDone = false
  let queue = Promise.resolve()
  const duplex: Duplex = new Duplex({
    read() {},
    write(chunk: Buffer, _encoding, callback) {
      buffer = Buffer.concat([buffer, chunk])
      const messages: Array<Buffer> = []
      for (;;) {
        if (!startupDone) {
          // startup-phase messages have no type byte, only an int32 length
          if (buffer.length < 8) break
          const length = buffer.readInt32BE(0)
          if (buffer.length < length) break
          const code = buffer.readInt32BE(4)
          const message = buffer.subarray(0, length)
          buffer = buffer.subarray(length)
          if (code === SSL_REQUEST) duplex.push(Buffer.from("N"))
          else if (code !== CANCEL_REQUEST) {
            startupDone = true
            messages.push(message)
          }
        } else {
          if (buffer.length < 5) break
          const length = 1 + buffer.readInt32BE(1)
          if (buffer.length < length) break
          messages.push(buffer.subarray(0, length))
          buffer = buffer.subarray(length)
        }
      }
      queue = queue.then(async () => {
        for (const message of messages) {
          if (message[0] === TERMINATE) return void duplex.push(null)
          await db.runExclusive(() =>
            db.execProtocolRawStream(new Uint8Array(message), {
              onRawData: (data) => void duplex.push(Buffer.from(data))
            })
          )
        }
      }).catch((error: unknown) => void duplex.destroy(error instanceof Error ? error : new Error(String(error))))
      callback()
    }
  })
  return duplex
}
