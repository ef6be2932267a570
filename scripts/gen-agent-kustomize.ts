// npm run gen:agent-kustomize: writes deploy/agent (the agent's kustomize base, components and an
// example overlay) from lib/domain/agent-manifest.ts, the source of the console's manifest. Run it
// after changing the manifest; tests/unit/deploy/agent-kustomize.test.ts fails while it is stale.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { agentKustomizeFiles } from "../lib/domain/agent-kustomize";

const root = path.join(process.cwd(), "deploy/agent");
rmSync(root, { recursive: true, force: true });
const files = agentKustomizeFiles();
for (const [rel, text] of Object.entries(files)) {
  const file = path.join(root, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}
console.log(`wrote ${Object.keys(files).length} files under deploy/agent (${readdirSync(root).join(", ")})`);
