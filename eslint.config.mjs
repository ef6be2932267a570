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
        {
          // The server's locale is not the browser's: "1,000" rendered as "1.000" is a hydration mismatch.
          selector: "CallExpression[callee.property.name=/^toLocale(Date|Time)?String$/][arguments.length=0]",
          message: 'Name the locale ("en-US"): the console prints the same text on the server and in the browser.',
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
// The layers, kept by the linter: rules (lib/domain) depend on nothing of ours; contracts only on
// rules; the browser's code never on the server's; the server and the agent program share only
// lib/domain and lib/net; nothing in lib/ reaches into developer tools (scripts/).
const zone = (target, from, message) => ({ target, from, message });
config.push({
  files: ["lib/**", "app/**", "components/**", "server.ts", "proxy.ts"],
  rules: {
    "import/no-cycle": ["error", { ignoreExternal: true }],
    "import/no-restricted-paths": [
      "error",
      {
        zones: [
          zone(
            "./lib/domain",
            ["./lib/server", "./lib/client", "./lib/contracts", "./lib/agent", "./lib/cli"],
            "lib/domain is pure rules: it imports no other layer.",
          ),
          zone(
            "./lib/contracts",
            ["./lib/server", "./lib/client", "./lib/agent"],
            "lib/contracts declares the API from lib/domain only.",
          ),
          zone("./lib/client", ["./lib/server", "./lib/agent"], "Browser code cannot import the server or the agent."),
          zone(
            "./lib/server",
            ["./lib/agent", "./lib/cli"],
            "The server does not import the agent program (shared code lives in lib/domain or lib/net).",
          ),
          zone(
            "./lib/agent",
            ["./lib/server", "./lib/client"],
            "The agent ships alone: it imports neither the server nor the console.",
          ),
          zone(
            "./lib/cli",
            ["./lib/server", "./lib/client", "./lib/agent"],
            "fleetctl speaks the admin API as its contracts declare it: lib/contracts and lib/domain only.",
          ),
          zone(
            ["./lib/agent/!(cli).ts", "./lib/agent/kube/**"],
            "./lib/agent/simulator",
            "The agent's core is given its cluster backend by the program that runs it (cli.ts, the simulator).",
          ),
          zone(
            "./lib/net",
            ["./lib/server", "./lib/agent", "./lib/client"],
            "lib/net is shared by the server and the agent: it imports neither.",
          ),
          zone("./lib", "./scripts", "scripts/ holds developer tools; run-time code lives in lib/ or runtime/."),
        ],
      },
    ],
  },
});

export default config;
