import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules/", "dist/", "data/", "core/types/generated/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: "readonly", console: "readonly", URL: "readonly" },
    },
    rules: {
      "no-console": "error",
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", ignoreRestSiblings: true },
      ],
      "@typescript-eslint/consistent-type-imports": "error",
    },
  },
  {
    // The domain knows no HTTP: only the HTTP layer, the routes and the roots that build the
    // server (app, service, compose) import Express or core/http. Jobs and the crawler use the
    // domain without them.
    files: ["core/**/*.ts"],
    ignores: [
      "core/http/**",
      "core/routes/**",
      "core/app.ts",
      "core/service.ts",
      "core/compose.ts",
      "core/host/testing/**",
      "**/*.test.ts",
    ],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [
            {
              name: "express",
              message: "The domain knows no Express: keep it in core/http or core/routes.",
            },
          ],
          patterns: [
            {
              regex: "^(\\.{1,2}/)+http/",
              message:
                "The domain knows no HTTP: throw errors from core/errors.ts; core/http maps them.",
            },
          ],
        },
      ],
    },
  },
  {
    // Built-in plugins stand where a third party's would: they use the public API ("sitevoice",
    // "sitevoice/sql", "sitevoice/testing") and their own files, never the core's internals.
    files: ["plugins/**/*.ts"],
    ignores: ["**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^(\\.\\./)+(core|test)/",
              message:
                'A plugin uses the public API: import from "sitevoice" or "sitevoice/sql", not core/.',
            },
          ],
        },
      ],
    },
  },
  {
    // The CLI, scripts and benchmarks talk to a terminal on purpose.
    files: ["core/cli.ts", "core/cli/**", "bin/**", "bench/**", ".ci/**"],
    rules: { "no-console": "off" },
  },
);
