/**
 * Every installed shared tool, listed explicitly. Adding a tool: a folder `plugins/<id>/` with its
 * `index.ts`, `README.md` and a test, and one line here. A test fails when a folder is not listed.
 */
import type { SvcTool } from "../src/tools/SvcTool.ts"
import { CurrentTime } from "./svc_current_time/index.ts"
import { ExpandOutput } from "./svc_expand_output/index.ts"
import { GenerateUuid } from "./svc_generate_uuid/index.ts"

export const plugins: ReadonlyArray<SvcTool> = [CurrentTime, ExpandOutput, GenerateUuid]
