/**
 * `npm run lint`: ESLint's and typescript-eslint's recommended rules, and the formatting Effect's own
 * repositories use, run as a rule (`@effect/dprint`: dprint's TypeScript formatter, compiled to
 * WebAssembly, so no native binary is fetched). `npm run lint:fix` formats and fixes what can be.
 */
import * as effectEslint from "@effect/eslint-plugin"
import eslint from "@eslint/js"
import { defineConfig } from "eslint/config"
import globals from "globals"
import tseslint from "typescript-eslint"

export default defineConfig(
  {
    ignores: [
      "dist/**",
      "node_modules/**",
      "bench/results/**",
      "bench/compression/corpus/**",
      "src/console/web/dist/**",
      "**/*.d.ts"
    ]
  },
  eslint.configs.recommended,
  tseslint.configs.recommended,
  ...effectEslint.configs.dprint,
  // TypeScript checks names in .ts files; the few plain JavaScript files run on Node
  { files: ["**/*.js", "**/*.mjs"], languageOptions: { globals: globals.node } },
  // tests read JSON bodies of every shape, and the fuzz tests poke arbitrary ones: `any` there is the
  // body as the test reads it; the gateway's own code keeps the rule
  { files: ["test/**"], rules: { "@typescript-eslint/no-explicit-any": "off" } },
  {
    rules: {
      // a leading underscore says "unused on purpose" (a destructured field left out, a callback's slot)
      "@typescript-eslint/no-unused-vars": ["error", {
        argsIgnorePattern: "^_",
        varsIgnorePattern: "^_",
        destructuredArrayIgnorePattern: "^_",
        ignoreRestSiblings: true
      }],
      "@effect/dprint": ["error", {
        config: {
          indentWidth: 2,
          lineWidth: 120,
          semiColons: "asi",
          quoteStyle: "alwaysDouble",
          trailingCommas: "never",
          operatorPosition: "maintain",
          "arrowFunction.useParentheses": "force"
        }
      }]
    }
  }
)
