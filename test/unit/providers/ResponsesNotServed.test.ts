/** Which refusals of `/responses` say the server has none (so chat completions are tried), and which do not. */
import { describe, expect, it } from "vitest"
import { ProviderError, UpstreamStatus, UpstreamUnreachable } from "../../../src/providers/ProviderError.ts"
import { responsesNotServed } from "../../../src/providers/responses/Responses.ts"

const status = (code: number, message: string, errorCode?: string) =>
  new ProviderError({
    provider: "p",
    reason: new UpstreamStatus({ status: code, message, ...(errorCode === undefined ? {} : { code: errorCode }) })
  })

describe("responsesNotServed", () => {
  it.each([
    [status(405, "Method Not Allowed"), true],
    [status(404, "Not Found"), true],
    [status(404, "File Not Found"), true],
    [status(404, "The model `x` does not exist or you do not have access to it.", "model_not_found"), false],
    [status(404, "model 'x' not found"), false],
    [status(400, "Bad request"), false],
    [status(500, "Not Found"), false],
    [new ProviderError({ provider: "p", reason: new UpstreamUnreachable({ message: "refused" }) }), false]
  ])("%s", (error, expected) => {
    expect(responsesNotServed(error)).toBe(expected)
  })
})
