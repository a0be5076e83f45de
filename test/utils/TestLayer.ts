/**
 * Partial fakes of services, as layers (`makeTestLayer(Tag)(partial)`): a test gives only the members
 * it exercises; calling any other effectful member dies with "Unimplemented method", so a test cannot
 * pass by accident through a member it did not mean to use.
 */
import { type Context, Layer } from "effect"

export const makeTestLayer =
  <I, S extends object>(tag: Context.Service<I, S>) => (service: Layer.PartialEffectful<S>): Layer.Layer<I> =>
    Layer.mock(tag, service)
