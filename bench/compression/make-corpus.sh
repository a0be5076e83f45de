#!/usr/bin/env bash
# Makes the compression corpus: real tools run on this machine, their output captured as a coding
# agent's tool would get it (under a pseudo-terminal where the tool draws colours, spinners and
# progress bars for one), one file per output in bench/compression/corpus/<category>/. Run it again to
# refresh the corpus; `npm run bench:compression` reads the files, not the tools.
# Needs: node/npm (the pinned Node), git, python3 with pytest, cargo, curl, script (util-linux).
# Docker has no daemon here: the docker category replays docker's own redraw sequence (cursor up,
# erase line) from a script, byte for byte as `docker pull` writes it to a terminal.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
out="$here/corpus"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export PATH="$repo/node_modules/.bin:$PATH"
rm -rf "$out"
mkdir -p "$out"

# runs a command under a pseudo-terminal (colours and redraws as a terminal gets them), saving its output
tty() {
  local file="$1"; shift
  mkdir -p "$(dirname "$out/$file")"
  script -qfec "$*" /dev/null > "$out/$file" 2>&1 || true
}
# runs a command as a pipe (what an agent without a terminal gets)
pipe() {
  local file="$1"; shift
  mkdir -p "$(dirname "$out/$file")"
  bash -c "$*" > "$out/$file" 2>&1 || true
}

echo "== npm: install and build logs"
mkdir -p "$work/app" && cd "$work/app"
npm init -y > /dev/null
tty npm/install-tty.txt "FORCE_COLOR=1 npm install --no-audit --no-fund --loglevel=http eslint@9 typescript@5 typescript-eslint@8 globals@15"
pipe npm/install-vitest.txt "npm install --no-audit --no-fund vitest@3"
pipe npm/ls.txt "npm ls --all --depth=1"
pipe npm/install-again.txt "npm install --no-audit --no-fund --loglevel=http lodash@4 chalk@5"

echo "== tsc and eslint errors"
mkdir -p src
cat > src/shapes.ts <<'TS'
export interface Shape { readonly kind: "circle" | "square"; readonly size: number }
export const area = (shape: Shape): number => {
  switch (shape.kind) {
    case "circle": return Math.PI * shape.radius ** 2
    case "square": return shape.size * shape.sise
  }
}
export const total = (shapes: Shape[]) => shapes.reduce((sum, s) => sum + area(s), "0")
const unused = 42
export function parse(input: string): Shape { return JSON.parse(input) as Shapes }
export const described = area({ kind: "triangle", size: 3 })
TS
cp src/shapes.ts src/shapes2.ts && cp src/shapes.ts src/more.ts
cat > tsconfig.json <<'JSON'
{ "compilerOptions": { "strict": true, "noEmit": true, "target": "es2022", "module": "nodenext", "noUnusedLocals": true }, "include": ["src"] }
JSON
tty tsc/errors-pretty.txt "npx tsc -p . --pretty"
pipe tsc/errors-plain.txt "npx tsc -p . --pretty false"
cat > eslint.config.mjs <<'JS'
import js from "@eslint/js"
import tseslint from "typescript-eslint"
export default tseslint.config(js.configs.recommended, ...tseslint.configs.recommended, { rules: { "no-console": "warn", "prefer-const": "error", eqeqeq: "error" } })
JS
cat > src/lint.ts <<'TS'
var a = 1
let b = 2
if (a == b) console.log("equal")
function f(x: any) { return x }
const g = (y) => { debugger; return y }
export { f, g }
TS
tty eslint/stylish-tty.txt "npx eslint --color src"
pipe eslint/json.txt "npx eslint -f json src | python3 -m json.tool"

echo "== vitest and pytest"
mkdir -p test
cat > test/math.test.ts <<'TS'
import { describe, expect, it } from "vitest"
const add = (a: number, b: number) => a + b
describe("math", () => {
  for (let i = 0; i < 40; i++) it(`adds ${i}`, () => expect(add(i, 1)).toBe(i + 1))
  it("fails on purpose", () => expect({ a: 1, b: [1, 2, 3] }).toEqual({ a: 2, b: [1, 2, 4] }))
  it("throws", () => { throw new TypeError("Cannot read properties of undefined (reading 'map')") })
})
TS
cp test/math.test.ts test/more.test.ts
tty vitest/run-tty.txt "FORCE_COLOR=1 npx vitest run --reporter=verbose"
pipe vitest/run-plain.txt "npx vitest run"
mkdir -p "$work/py" && cd "$work/py"
cat > test_things.py <<'PY'
import pytest
def add(a, b): return a + b
@pytest.mark.parametrize("i", range(60))
def test_add(i): assert add(i, 1) == i + 1
def test_fail(): assert {"a": 1, "b": [1, 2, 3]} == {"a": 2, "b": [1, 2, 4]}
def test_raise(): raise KeyError("missing")
PY
tty pytest/run-tty.txt "python3 -m pytest -v --color=yes"
pipe pytest/run-plain.txt "python3 -m pytest -q"

echo "== cargo"
cd "$work" && cargo new --quiet crab && cd crab
cat > src/main.rs <<'RS'
use std::collections::HashMap;
fn main() {
    let unused = 5;
    let mut map: HashMap<String, i32> = HashMap::new();
    map.insert("a".to_string(), "one");
    let v = vec![1, 2, 3];
    let s: String = v.iter().sum();
    println!("{}", undefined_name);
}
RS
tty cargo/build-errors-tty.txt "cargo build --color always"
pipe cargo/build-errors-plain.txt "cargo build --color never"
cat > src/main.rs <<'RS'
fn main() { let x = 1; println!("ok"); }
RS
tty cargo/build-ok-tty.txt "cargo build --color always"

echo "== git"
cd "$repo"
tty git/log-stat.txt "git --no-pager log --stat --color=always -n 8"
pipe git/log-oneline.txt "git --no-pager log --oneline -n 60"
tty git/diff.txt "git --no-pager diff --color=always HEAD~4 HEAD -- src/compression/Safe.ts src/compression/Lines.ts src/store/Database.ts"
pipe git/status.txt "git status; git --no-pager show --stat HEAD~2"

echo "== listings"
pipe listings/ls-R.txt "ls -laR src plugins | head -n 400"
pipe listings/find.txt "find src test bench -type f | sort | head -n 500"
tty listings/ls-color.txt "ls -la --color=always src/* | head -n 300"

echo "== JSON from a local API"
cd "$repo"
port=$((20000 + RANDOM % 20000))
GATEWAY_DATA_DIR="$work/gw" GATEWAY_ADMIN_TOKEN=corpus-admin PORT=$port HOST=127.0.0.1 node src/main.ts > "$work/gw.log" 2>&1 &
gw=$!
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$port/ready" > /dev/null && break; sleep 0.2; done
for i in $(seq 1 6); do curl -s -X POST -H "authorization: Bearer corpus-admin" -H "content-type: application/json" -d "{\"name\":\"team $i\"}" "http://127.0.0.1:$port/admin/v1/orgs" > /dev/null; done
pipe json/orgs-pretty.txt "curl -s -H 'authorization: Bearer corpus-admin' http://127.0.0.1:$port/admin/v1/orgs | python3 -m json.tool"
pipe json/tools-pretty.txt "curl -s -H 'authorization: Bearer corpus-admin' http://127.0.0.1:$port/admin/v1/svc-tools | python3 -m json.tool --indent 4"
pipe json/tools-minified.txt "curl -s -H 'authorization: Bearer corpus-admin' http://127.0.0.1:$port/admin/v1/svc-tools"
pipe json/models-headers.txt "curl -si http://127.0.0.1:$port/v1/models -H 'authorization: Bearer nope'; echo; curl -s http://127.0.0.1:$port/health | python3 -m json.tool"
kill $gw; wait $gw 2>/dev/null || true
pipe json/package-lock-part.txt "python3 -c \"import json;d=json.load(open('package-lock.json'));print(json.dumps(dict(list(d['packages'].items())[:40]),indent=2))\""

echo "== stack traces"
pipe stacks/node.txt "node -e \"function a(){b()} function b(){c()} function c(){ JSON.parse('{bad') } try { a() } catch (e) { console.error(e) }; Promise.reject(new Error('unhandled in promise'))\""
pipe stacks/python.txt "python3 -c \"
import json
def load(p): return json.loads(p)
def handler(req): return load(req['body'])
def serve(): handler({'body': '{bad'})
serve()\""
pipe stacks/node-deep.txt "node -e \"const f=(n)=>n===0?null.x:f(n-1); try{f(40)}catch(e){console.error(e.stack)}; require('./nope')\""

echo "== docker-style progress (replayed)"
mkdir -p "$out/docker"
node "$here/docker-progress.mjs" pull > "$out/docker/pull.txt"
node "$here/docker-progress.mjs" build > "$out/docker/build.txt"

echo "== prose"
pipe prose/readme-part.txt "sed -n '1,120p' $repo/README.md"
pipe prose/plugin-readme.txt "cat $repo/plugins/svc_current_time/README.md"
pipe prose/spec.txt "sed -n '1,150p' $repo/../shared/SPEC.md 2>/dev/null || sed -n '120,260p' $repo/README.md"

echo "corpus written to $out:"
find "$out" -type f | sort | xargs wc -c | tail -n 1
