// The agent image as Dockerfile.agent builds it: its build stage, performed in an empty folder
// holding only what its COPY lines bring (tests/helpers/container-image.ts), makes a bundle that
// runs on its own and knows its version. The bundle's run in a pod is tests/system/agent-kube.test.ts.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { buildImage, composeProcess, hostPath, type BuiltImage } from "../../helpers/container-image";

let image: BuiltImage;
before(() => {
  // One esbuild run for the file, as a release pipeline builds it (tests/system/agent-kube.test.ts
  // builds without the argument).
  image = buildImage("Dockerfile.agent", process.cwd(), { AGENT_VERSION: "1.5.0" });
});
after(() => image?.dispose());

/** The image's node, as the composed command line names it, is the test's node. */
function run(argv: string[]): string {
  const [node, ...rest] = argv;
  assert.equal(node, "/nodejs/bin/node", "the distroless image's node");
  const mapped = rest.map((a) => (a.startsWith("/app/") ? hostPath(image.rootfs, "/", a) : a));
  return execFileSync(process.execPath, mapped, { cwd: hostPath(image.rootfs, image.config.workdir, "."), encoding: "utf8" });
}

test("Dockerfile.agent builds from only what its COPY lines bring, and the bundle runs without node_modules", () => {
  const argv = composeProcess(image.config, { runAsNonRoot: true }, { args: ["--help"] }).argv;
  assert.deepEqual(argv, ["/nodejs/bin/node", "/app/agent.mjs", "--help"], "the manifest's args follow the script");
  assert.match(run(argv), /^Usage: npm run agent/);
});

test("an image built for 1.5.0 reports 1.5.0: the version is baked in at build time, no constant edited", () => {
  const { agentVersion } = JSON.parse(readFileSync("package.json", "utf8")) as { agentVersion: string };
  assert.notEqual(agentVersion, "1.5.0", "the build argument, not package.json, decides here");
  const argv = composeProcess(image.config, { runAsNonRoot: true }, { args: ["--version"] }).argv;
  assert.equal(run(argv).trim(), "1.5.0");
});
