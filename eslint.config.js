import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules/", "dist/", "data/", "core/types/generated/", "api/"] },
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
    // The domain knows no HTTP: only the HTTP layer (with the app and the service that serves it)
    // and the routes import Express or core/http, and `sitevoice serve`, which starts that
    // service. The composition root does not, so jobs and the crawler can build the parts and
    // use the domain without Express. Tests, the fixtures they share (*-fixtures.ts) and the
    // conformance kit (test code shipped as sitevoice/testing) may check HTTP statuses.
    files: ["core/**/*.ts"],
    ignores: [
      "core/http/**",
      "core/routes/**",
      "core/cli/serve.ts",
      "core/host/testing/**",
      "**/*.test.ts",
      "**/*-fixtures.ts",
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
    // "sitevoice/sql", "sitevoice/testing") and the files in their own folder, never the core's
    // internals nor another plugin's. The fixtures their tests share (*-fixtures.ts) too; the
    // test files themselves may reach into the core.
    files: ["plugins/**/*.ts"],
    ignores: ["**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^\\.\\./",
              message:
                'A plugin uses the public API ("sitevoice", "sitevoice/sql") and its own files, nothing outside its folder.',
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
  {
    // The widget runs in visitors' browsers: its one console warning is for the site's owner
    // (a page whose origin the site does not list), the only place they would see it.
    files: ["widget/src/**/*.ts"],
    rules: { "no-console": ["error", { allow: ["warn"] }] },
  },
  {
    // The dashboard's own script, served as written to the browser.
    files: ["dashboard/static/**/*.js"],
    languageOptions: {
      sourceType: "script",
      globals: {
        document: "readonly",
        location: "readonly",
        history: "readonly",
        fetch: "readonly",
        FormData: "readonly",
        DOMParser: "readonly",
        URLSearchParams: "readonly",
        navigator: "readonly",
        window: "readonly",
        EventSource: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
        ResizeObserver: "readonly",
        uPlot: "readonly",
      },
    },
  },
);
