// The agent runs on amd64 and arm64 nodes: Dockerfile.agent builds for both with buildx (no engine
// runs here, so this reads the Dockerfile), and no manifest the console hands out pins an
// architecture.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { agentManifestObjects, type ManifestInstall } from "@/lib/domain/agent-manifest";
import { parseDockerfile } from "../../helpers/container-image";

/** Base images published for linux/amd64 and linux/arm64 (their registries' manifest lists). */
const MULTI_ARCH_BASES = new Set(["node:22-bookworm-slim", "gcr.io/distroless/nodejs22-debian12:nonroot"]);

test("Dockerfile.agent: the build stage runs on the builder's platform, the runtime follows the target", () => {
  const text = readFileSync("Dockerfile.agent", "utf8");
  const stages = parseDockerfile(text);
  const build = stages.find((s) => s.name === "build")!;
  const runtime = stages.at(-1)!;
  assert.equal(build.platform, "$BUILDPLATFORM", "npm ci and esbuild run natively, never under emulation");
  assert.equal(runtime.platform, null, "the runtime image is the target platform's");
  for (const stage of stages) assert.ok(MULTI_ARCH_BASES.has(stage.base), `${stage.base} is published for amd64 and arm64`);
  // What crosses from the build platform to the target is plain JavaScript, no native addon.
  const copied = runtime.instructions.filter((i) => i.op === "COPY" && i.value.startsWith("--from=build"));
  assert.ok(copied.length > 0);
  for (const c of copied) assert.match(c.value.split(/\s+/)[1]!, /\.m?js$/, c.value);
  assert.match(text, /docker buildx build --platform linux\/amd64,linux\/arm64/, "the header says how");
  assert.match(readFileSync("docs/agent.md", "utf8"), /docker buildx build --platform linux\/amd64,linux\/arm64/);
});

test("no manifest pins an architecture: only kubernetes.io/os", () => {
  const install: ManifestInstall = {
    agentUrl: "https://fleet.example.com:8443",
    caFingerprint: `sha256:${"ab".repeat(32)}`,
    agentImage: "registry.example.com/fleet/agent:1.4.0",
    clusterName: "arm-1",
    labels: {},
    token: "frt_x_y",
  };
  for (const options of [
    {},
    { allowNodeActions: true, metrics: true, tolerations: [{ key: "arch", operator: "Exists" as const }] },
  ]) {
    const deployment = agentManifestObjects({ ...install, ...options }).find((o) => o.kind === "Deployment")!;
    const text = JSON.stringify(deployment);
    assert.doesNotMatch(text, /kubernetes\.io\/arch|beta\.kubernetes\.io\/arch|amd64|arm64/);
    const pod = (deployment.spec as { template: { spec: { nodeSelector: unknown; affinity?: unknown } } }).template.spec;
    assert.deepEqual(pod.nodeSelector, { "kubernetes.io/os": "linux" });
    assert.equal(pod.affinity, undefined);
  }
});
