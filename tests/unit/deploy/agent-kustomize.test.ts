// deploy/agent (the agent's kustomize base and components) is what npm run gen:agent-kustomize
// writes from lib/domain/agent-manifest.ts, the console's manifest source: edit the source, then
// regenerate. Rendering it with kubectl is tests/integration/engine-free/agent-kustomize.test.ts.
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { agentKustomizeFiles } from "@/lib/domain/agent-kustomize";

const ROOT = path.join(process.cwd(), "deploy/agent");

function filesUnder(dir: string, prefix = ""): string[] {
  return readdirSync(dir).flatMap((name) => {
    const rel = prefix ? `${prefix}/${name}` : name;
    return statSync(path.join(dir, name)).isDirectory() ? filesUnder(path.join(dir, name), rel) : [rel];
  });
}

test("deploy/agent is what npm run gen:agent-kustomize writes from the manifest's source", () => {
  const expected = agentKustomizeFiles();
  // A token.txt beside the example (to try it; gitignored) is the user's, not generated.
  const present = filesUnder(ROOT).filter((f) => f !== "example/token.txt");
  assert.deepEqual(present.sort(), Object.keys(expected).sort(), "the same files");
  for (const [rel, text] of Object.entries(expected))
    assert.equal(readFileSync(path.join(ROOT, rel), "utf8"), text, `deploy/agent/${rel} is stale: npm run gen:agent-kustomize`);
  assert.ok(
    !readFileSync(path.join(ROOT, "base/agent.yaml"), "utf8").includes("fleet-agent-token\n  namespace"),
    "no token Secret",
  );
});
