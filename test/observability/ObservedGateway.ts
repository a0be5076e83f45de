/**
 * The real gateway with a tracing layer provided outermost (`TracingTest(exporter)` or `TracingLive`),
 * as main.ts provides it; `metrics` reads what it recorded.
 */
import type { Layer } from "effect"
import { startGateway, type TestGateway } from "../utils/TestGateway.ts"

export type ObservedGateway = TestGateway

export const startObservedGateway = <A, E>(env: Record<string, string>, tracing: Layer.Layer<A, E>) =>
  startGateway(env, { tracing })
