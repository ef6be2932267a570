// The product's Node flags live in runtime/server-node-flags.mjs; the two places that cannot import
// it (the Dockerfile's CMD, `npm run serve`) repeat them and must not drift from it.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { SERVER_NODE_FLAGS } from "../../../runtime/server-node-flags.mjs";

const root = new URL("../../../", import.meta.url);
// server.ts as `npm run build` compiles it (scripts/build-server.mjs).
const SERVER = ".next/fleet/server.mjs";

test("the Dockerfile's CMD runs server.ts with exactly the product's Node flags", () => {
  const dockerfile = readFileSync(new URL("Dockerfile", root), "utf8");
  const cmd = /^CMD (\[.*\])$/m.exec(dockerfile);
  assert.ok(cmd, "a CMD in exec form");
  assert.deepEqual(JSON.parse(cmd[1]!), ["node", ...SERVER_NODE_FLAGS, SERVER]);
});

test("npm run serve runs server.ts with exactly the product's Node flags", () => {
  const scripts = JSON.parse(readFileSync(new URL("package.json", root), "utf8")).scripts as Record<string, string>;
  // The build NEXT_DIST_DIR names, if any (the e2e suites may build elsewhere).
  assert.deepEqual(scripts.serve!.split(" "), [
    "NODE_ENV=production",
    "node",
    ...SERVER_NODE_FLAGS,
    `\${NEXT_DIST_DIR:-.next}/fleet/server.mjs`,
  ]);
});
