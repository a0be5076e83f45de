/**
 * What a Responses WebSocket remembers to continue a response (`ResponseChain`), and how the socket
 * reads the pipeline's server-sent events back into events (`sseData`), events split anywhere.
 */
import { assert, describe, it } from "@effect/vitest"
import { inputItems, ResponseChain } from "../../../src/http/ResponseChain.ts"
import { sseData } from "../../../src/http/ResponsesSocket.ts"

const user = (text: string) => ({ type: "message", role: "user", content: [{ type: "input_text", text }] })
const said = (text: string) => ({ type: "message", role: "assistant", content: [{ type: "output_text", text }] })

describe("ResponseChain", () => {
  it("a body without previous_response_id runs as it came", () => {
    assert.deepStrictEqual(new ResponseChain().continued({ model: "m", input: "hi" }), { model: "m", input: "hi" })
  })

  it("continues a remembered response: its input, its output, then the new items", () => {
    const chain = new ResponseChain()
    chain.remember("resp_1", "first", [said("one")])
    assert.deepStrictEqual(chain.continued({ model: "m", previous_response_id: "resp_1", input: [user("second")] }), {
      model: "m",
      input: [user("first"), said("one"), user("second")]
    })
  })

  it("remembers a response.completed event's response, and nothing from other events", () => {
    const chain = new ResponseChain()
    chain.rememberCompleted({ type: "response.created", response: { id: "resp_x", output: [] } }, "a")
    chain.rememberCompleted({ type: "response.completed", response: { id: "resp_y", output: [said("b")] } }, "a")
    assert.isUndefined(chain.continued({ previous_response_id: "resp_x" }))
    assert.deepStrictEqual(chain.continued({ previous_response_id: "resp_y" })?.["input"], [user("a"), said("b")])
  })

  it("an unknown id is undefined; only the last four responses are kept", () => {
    const chain = new ResponseChain()
    for (let i = 1; i <= 5; i++) chain.remember(`resp_${i}`, `q${i}`, [])
    assert.isUndefined(chain.continued({ previous_response_id: "resp_1" }))
    assert.isUndefined(chain.continued({ previous_response_id: "nope" }))
    assert.isDefined(chain.continued({ previous_response_id: "resp_2" }))
  })

  it("input items: a string is one user message, an array as it is, nothing is none", () => {
    assert.deepStrictEqual(inputItems("hi"), [user("hi")])
    assert.deepStrictEqual(inputItems([said("x")]), [said("x")])
    assert.deepStrictEqual(inputItems(undefined), [])
  })
})

describe("sseData", () => {
  it("reads each event's data, keeps what is not whole yet, skips [DONE] and events without data", () => {
    const text = "event: a\ndata: {\"n\":1}\n\n: comment\n\ndata: {\"n\":2}\r\n\r\ndata: [DONE]\n\ndata: {\"n\""
    assert.deepStrictEqual(sseData(text), { data: ["{\"n\":1}", "{\"n\":2}"], rest: "data: {\"n\"" })
  })

  it("events split at every byte come out the same", () => {
    const text = "data: {\"a\":1}\n\ndata: {\"b\":2}\n\n"
    const data: Array<string> = []
    let rest = ""
    for (const char of text) {
      const read = sseData(rest + char)
      rest = read.rest
      data.push(...read.data)
    }
    assert.deepStrictEqual(data, ["{\"a\":1}", "{\"b\":2}"])
  })
})
