import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startGateway, type TestGateway } from "../utils/TestGateway.ts"

describe("gateway smoke", () => {
  let gw: TestGateway
  beforeAll(async () => {
    gw = await startGateway()
  })
  afterAll(() => gw.close())

  it("answers local/echo with a fresh key", async () => {
    const { key } = await gw.newKey()
    const response = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: "local/echo", messages: [{ role: "user", content: "ping pong" }] })
    })
    expect(response.status).toBe(200)
    const body = (await response.json()) as { choices: Array<{ message: { content: string } }> }
    expect(body.choices[0].message.content).toBe("ping pong")
  })
})
