/**
 * What the console's browser tests share: Debian's Chromium (installed when missing, as CI does), the
 * console built fresh into a temporary folder, and a real gateway serving it on 127.0.0.1.
 */
import { execFileSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type Browser, chromium, type Page } from "playwright-core"
import { build } from "vite"
import { ADMIN_TOKEN, startGateway, type TestGateway } from "../utils/TestGateway.ts"

export const CHROMIUM = "/usr/bin/chromium"

/** The flags the machine needs: no sandbox as root, and no calls home (the network is closed). */
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run"
]

/** Installs Debian's Chromium when it is missing; only root can, so anyone else is told how. */
export const ensureChromium = () => {
  if (existsSync(CHROMIUM)) return
  if (process.getuid?.() !== 0) {
    throw new Error(`The browser tests need Debian's Chromium at ${CHROMIUM}: run 'sudo apt-get install -y chromium'.`)
  }
  // the browser suites start in parallel: the second one waits for the first one's dpkg lock
  const apt = (...args: ReadonlyArray<string>) =>
    execFileSync("apt-get", ["-o", "DPkg::Lock::Timeout=300", ...args], {
      stdio: "inherit",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" }
    })
  try {
    apt("install", "-y", "chromium")
  } catch {
    apt("update")
    apt("install", "-y", "chromium")
  }
  if (!existsSync(CHROMIUM)) throw new Error(`apt-get installed chromium, but ${CHROMIUM} is not there`)
}

/** Builds the console from the sources into a new folder, so a test never reads a stale build. */
export const buildConsole = async (): Promise<string> => {
  const outDir = mkdtempSync(join(tmpdir(), "svc-gateway-console-"))
  await build({
    configFile: new URL("../../src/console/vite.config.ts", import.meta.url).pathname,
    build: { outDir, emptyOutDir: true },
    logLevel: "warn"
  })
  return outDir
}

export interface OpenOptions {
  readonly signIn?: boolean
  readonly width?: number
  /** Lets a test inject a script (the accessibility checker) past the page's content policy. */
  readonly bypassCSP?: boolean
}

export interface ConsoleUnderTest {
  readonly gw: TestGateway
  readonly browser: Browser
  /** A fresh browser context (its own session storage) on the console, signed in unless told not to. */
  readonly open: (options?: OpenOptions) => Promise<Page>
  readonly close: () => Promise<void>
}

export const startConsole = async (env: Record<string, string> = {}): Promise<ConsoleUnderTest> => {
  ensureChromium()
  const consoleDir = await buildConsole()
  const gw = await startGateway({ GATEWAY_CONSOLE_DIR: consoleDir, ...env })
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS })

  const open = async (options: OpenOptions = {}) => {
    const context = await browser.newContext({
      viewport: { width: options.width ?? 1280, height: 900 },
      bypassCSP: options.bypassCSP ?? false,
      permissions: ["clipboard-read", "clipboard-write"]
    })
    const page = await context.newPage()
    page.setDefaultTimeout(10_000)
    await page.goto(`${gw.url}/console`)
    if (options.signIn ?? true) await signIn(page)
    return page
  }

  return {
    gw,
    browser,
    open,
    close: async () => {
      await browser.close()
      await gw.close()
    }
  }
}

/** Evaluates a JavaScript expression in the page (text, so the tests need no DOM types). */
export const inPage = <A = unknown>(page: Page, expression: string): Promise<A> =>
  page.evaluate(expression) as Promise<A>

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")

interface Violation {
  readonly id: string
  readonly help: string
  readonly nodes: ReadonlyArray<{ readonly target: ReadonlyArray<string> }>
}

/**
 * axe-core's WCAG 2.1 A and AA findings on the page as it is, one line each (rule, help, elements); the
 * page must be opened with `bypassCSP` so the checker can be injected.
 */
export const violations = async (page: Page): Promise<ReadonlyArray<string>> => {
  if (!(await inPage<boolean>(page, "typeof window.axe === 'object'"))) await page.addScriptTag({ content: AXE })
  const found = await inPage<ReadonlyArray<Violation>>(
    page,
    "axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } }).then((r) => r.violations)"
  )
  return found.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`)
}

export const signIn = async (page: Page, token = ADMIN_TOKEN) => {
  await page.getByLabel("Admin token").fill(token)
  await page.getByRole("button", { name: "Sign in" }).click()
  await page.getByRole("heading", { level: 1, name: "Organizations" }).waitFor()
}

export interface Person {
  readonly id: string
  readonly email: string
  /** A personal access token of her own, and its id. */
  readonly token: string
  readonly tokenId: string
}

/** A user made with the admin token (`<name>-<suffix>@example.com`), with her roles and a personal token. */
export const makePerson = async (
  gw: TestGateway,
  name: string,
  suffix: string,
  roles: ReadonlyArray<{ readonly role: string; readonly org_id: string }>
): Promise<Person> => {
  const email = `${name.toLowerCase()}-${suffix}@example.com`
  const made = async (what: string, answer: Promise<{ status: number; json: any }>, status: number) => {
    const { json, status: got } = await answer
    if (got !== status) throw new Error(`${what} answered ${got}: ${JSON.stringify(json)}`)
    return json
  }
  const user = await made("POST /users", gw.admin("POST", "/users", { email, name }), 201)
  await made("PUT roles", gw.admin("PUT", `/users/${user.id}/roles`, { roles }), 200)
  const token = await made("POST tokens", gw.admin("POST", `/users/${user.id}/tokens`, { name: "browser" }), 201)
  return { id: user.id, email, token: token.token, tokenId: token.id }
}

/** Creates an organization through the console's form; returns its id from the table. */
export const createOrgInConsole = async (page: Page, name: string): Promise<string> => {
  await page.goto(`${new URL(page.url()).origin}/console#/orgs`)
  await page.getByLabel("Name").fill(name)
  await page.getByRole("button", { name: "Create organization" }).click()
  const row = page.getByRole("row").filter({ hasText: name })
  await row.waitFor()
  const id = await row.locator("code").first().textContent()
  if (id === null) throw new Error("the new org's row has no id")
  return id
}
