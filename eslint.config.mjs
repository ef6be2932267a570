import next from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

const config = [
  ...next,
  ...nextTs,
  {
    ignores: [
      ".next/**",
      ".next-*/**",
      "node_modules/**",
      "lib/server/db/generated/**",
      "data/**",
      "test-results/**",
      "playwright-report/**",
      "next-env.d.ts",
    ],
  },
  {
    rules: {
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-restricted-syntax": [
        "error",
        {
          selector: "MemberExpression[object.name='process'][property.name='env']",
          message: "Read configuration through lib/env.ts.",
        },
      ],
    },
  },
  {
    // The configuration module, tool configs and scripts are where the environment is read.
    files: [
      "lib/env.ts",
      "server.ts",
      "scripts/**",
      "runtime/**",
      "prisma/*.config.ts",
      "playwright.config.ts",
      "e2e/**",
      "tests/**",
      "lib/agent/**",
      "lib/cli/**",
      "next.config.ts",
    ],
    rules: { "no-restricted-syntax": "off" },
  },
];
export default config;
