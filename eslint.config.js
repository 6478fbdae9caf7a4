import js from "@eslint/js";
import { defineConfig } from "eslint/config";
import globals from "globals";
import tseslint from "typescript-eslint";

/** The import boundaries of the architecture (also checked over the whole import graph by test/architecture/imports.test.ts). */
const wireOnly = {
  group: ["**/src/**", "!**/src/wire", "!**/src/wire/**"],
  message: "workers/ may import nothing of src/ but src/wire/.",
};
const noWorkers = {
  group: ["**/workers", "**/workers/**"],
  message: "src/ names workers/ only by the thread entry paths it starts with new URL(…, import.meta.url).",
};

export default defineConfig(
  { ignores: ["dist/", "node_modules/", "test-artifacts/", ".data/", "bench/results/"] },

  js.configs.recommended,

  {
    files: ["**/*.ts"],
    extends: [tseslint.configs.recommended],
    languageOptions: {
      globals: globals.node,
      parserOptions: { project: "./tsconfig.check.json", tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/await-thenable": "error",
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "@typescript-eslint/no-unused-vars": [
        "error",
        { args: "after-used", argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_", ignoreRestSiblings: true },
      ],
    },
  },

  {
    files: ["workers/**/*.ts"],
    rules: { "no-restricted-imports": ["error", { patterns: [wireOnly] }] },
  },
  {
    files: ["src/wire/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [{ name: "zod", message: "src/wire/ is shared with the threads, which do not load zod." }],
          patterns: [
            { group: ["../*", "!../wire", "!../wire/**"], message: "src/wire/ imports nothing of the rest of src/, nor of workers/." },
            { group: ["zod/*"], message: "src/wire/ is shared with the threads, which do not load zod." },
          ],
        },
      ],
    },
  },
  {
    files: ["src/**/*.ts"],
    ignores: ["src/wire/**"],
    rules: { "no-restricted-imports": ["error", { patterns: [noWorkers] }] },
  },

  {
    files: ["src/web/dashboard/**/*.js"],
    languageOptions: { sourceType: "module", globals: globals.browser },
  },
  {
    files: ["*.js"],
    languageOptions: { globals: globals.node },
  },
);
