/**
 * `GET /admin/v1/docs`: the admin API's reference, rendered on the server from the same OpenAPI
 * document `GET /admin/v1/openapi.json` serves. Plain HTML with no script, so it reads anywhere (the
 * usual renderers load their code from a CDN, which a gateway on a closed network cannot reach).
 */
import { Effect } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { OpenApi } from "effect/http-api"
import { AdminApi, OPENAPI_PATH } from "../admin/AdminApi.ts"

interface JsonSchema {
  readonly $ref?: string
  readonly type?: string | ReadonlyArray<string>
  readonly description?: string
  readonly enum?: ReadonlyArray<unknown>
  readonly items?: JsonSchema
  readonly anyOf?: ReadonlyArray<JsonSchema>
  readonly properties?: Readonly<Record<string, JsonSchema>>
  readonly required?: ReadonlyArray<string>
  readonly additionalProperties?: JsonSchema | boolean
}

interface Operation {
  readonly operationId: string
  readonly summary?: string
  readonly parameters?: ReadonlyArray<
    { readonly name: string; readonly in: string; readonly required?: boolean; readonly schema?: JsonSchema }
  >
  readonly requestBody?: { readonly content: Readonly<Record<string, { readonly schema: JsonSchema }>> }
  readonly responses: Readonly<
    Record<string, {
      readonly description: string
      readonly content?: Readonly<Record<string, { readonly schema: JsonSchema }>>
    }>
  >
}

const escape = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")

const refName = (ref: string) => ref.slice(ref.lastIndexOf("/") + 1)

/** A schema in one line: a link to a named one, else its type. */
const typeOf = (schema: JsonSchema | undefined): string => {
  if (schema === undefined) return ""
  if (schema.$ref !== undefined) {
    const name = refName(schema.$ref)
    return `<a href="#schema-${escape(name)}">${escape(name)}</a>`
  }
  if (schema.enum !== undefined) {
    return schema.enum.map((value) => `<code>${escape(JSON.stringify(value))}</code>`).join(" | ")
  }
  if (schema.anyOf !== undefined) return schema.anyOf.map(typeOf).join(" | ")
  if (schema.type === "array") return `array of ${typeOf(schema.items)}`
  if (schema.type === "object" && schema.properties === undefined) return "object"
  if (schema.properties !== undefined) return `{ ${Object.keys(schema.properties).map(escape).join(", ")} }`
  return escape([schema.type ?? "any"].flat().join(" | "))
}

const bodySchema = (content: Readonly<Record<string, { readonly schema: JsonSchema }>> | undefined) =>
  content === undefined ? undefined : Object.values(content)[0]?.schema

const renderOperation = (method: string, path: string, operation: Operation) => {
  const parameters = operation.parameters ?? []
  const body = bodySchema(operation.requestBody?.content)
  return `<section id="${escape(operation.operationId)}">
<h3><span class="method">${method.toUpperCase()}</span> <code>${escape(path)}</code></h3>
<p>${escape(operation.summary ?? "")}</p>
${
    parameters.length === 0 ?
      "" :
      `<table><tr><th>Parameter</th><th>In</th><th>Type</th><th>Notes</th></tr>${
        parameters.map((p) =>
          `<tr><td><code>${escape(p.name)}</code>${p.required === true ? " (required)" : ""}</td><td>${
            escape(p.in)
          }</td><td>${typeOf(p.schema)}</td><td>${escape(p.schema?.description ?? "")}</td></tr>`
        ).join("")
      }</table>`
  }
${body === undefined ? "" : `<p>Body: ${typeOf(body)}</p>`}
<ul>${
    Object.entries(operation.responses).map(([status, response]) =>
      `<li><b>${escape(status)}</b> ${escape(response.description)}${
        response.content === undefined ? "" : `: ${typeOf(bodySchema(response.content))}`
      }</li>`
    ).join("")
  }</ul>
</section>`
}

const renderSchema = (name: string, schema: JsonSchema) => {
  const properties = Object.entries(schema.properties ?? {})
  const required = new Set(schema.required ?? [])
  return `<section id="schema-${escape(name)}">
<h3>${escape(name)}</h3>
${schema.description === undefined ? "" : `<p>${escape(schema.description)}</p>`}
${
    properties.length === 0
      ? `<p>${typeOf(schema)}</p>`
      : `<table><tr><th>Field</th><th>Type</th><th>Notes</th></tr>${
        properties.map(([field, value]) =>
          `<tr><td><code>${escape(field)}</code>${required.has(field) ? "" : " (optional)"}</td><td>${
            typeOf(value)
          }</td><td>${escape(value.description ?? "")}</td></tr>`
        ).join("")
      }</table>`
  }
</section>`
}

/** The reference page for a document. */
export const renderReference = (document: OpenApi.OpenAPISpec): string => {
  const paths = document.paths as unknown as Readonly<Record<string, Readonly<Record<string, Operation>>>>
  const schemas = (document.components?.schemas ?? {}) as Readonly<Record<string, JsonSchema>>
  const operations = Object.entries(paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => renderOperation(method, path, operation))
  )
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(document.info.title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1d2330}
code{font:13px ui-monospace,monospace;background:#f1f3f7;padding:0 .25rem;border-radius:3px}
table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #d8dce4;padding:.25rem .5rem;text-align:left;vertical-align:top}
.method{font-weight:700;color:#3451b2}section{border-top:1px solid #e3e6ec;padding-top:.5rem}
</style></head><body>
<h1>${escape(document.info.title)}</h1>
<p>${escape(document.info.description ?? "")}</p>
<p>The machine-readable document: <a href="${OPENAPI_PATH}"><code>${OPENAPI_PATH}</code></a> (OpenAPI ${
    escape(document.openapi)
  }), to generate a client or check a change.</p>
<h2>Endpoints</h2>
${operations.join("\n")}
<h2>Schemas</h2>
${Object.entries(schemas).map(([name, schema]) => renderSchema(name, schema)).join("\n")}
</body></html>`
}

let page: HttpServerResponse.HttpServerResponse | undefined

/** `GET /admin/v1/docs`, public like the document it renders; rendered on first use, not at start-up. */
export const AdminDocsRoute = HttpRouter.add(
  "GET",
  "/admin/v1/docs",
  Effect.sync(() =>
    page ??= HttpServerResponse.text(renderReference(OpenApi.fromApi(AdminApi)), {
      contentType: "text/html; charset=utf-8",
      headers: { "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'" }
    })
  )
)
