/**
 * Which of the bench's PostgreSQL databases a new run drops at its start: only those of a run that is
 * gone, so two benches at once (a guard and an instruction count) do not drop each other's live store.
 */
import { spawnSync } from "node:child_process"
import { assert, describe, it } from "vitest"
import { isStale } from "../../../bench/database.ts"

describe("the bench's stale databases", () => {
  it("a database of a live run is kept; one of a dead run, or without a pid, is dropped", () => {
    const alive = (pid: number) => pid === 4242
    assert.isFalse(isStale("svc_gateway_bench_4242_gateway", alive))
    assert.isTrue(isStale("svc_gateway_bench_4243_gateway", alive))
    assert.isTrue(isStale("svc_gateway_bench_gateway", alive))
  })

  it("a database that only matches the LIKE pattern's wildcards is not the bench's and is kept", () => {
    assert.isFalse(isStale("svcXgatewayXbenchX1_main", () => false))
    assert.isFalse(isStale("test", () => false))
  })

  it("asks the system: this process is alive, one that has exited is not", () => {
    assert.isFalse(isStale(`svc_gateway_bench_${process.pid}_main`))
    const exited = spawnSync(process.execPath, ["-e", ""]).pid
    assert.isTrue(isStale(`svc_gateway_bench_${exited}_main`))
  })
})
