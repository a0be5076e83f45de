#!/usr/bin/env node
// Launcher for `npx svc-gateway ...`. Node 24 runs the TypeScript sources as they are (type stripping);
// npx puts node_modules/.bin, with the pinned Node 24, first on PATH.
await import("../src/cli/main.ts")
