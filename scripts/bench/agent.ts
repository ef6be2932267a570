// npm run bench:agent — the in-cluster agent on a big cluster: one full read (nodes, namespaces,
// DaemonSets, metrics APIService, /readyz, pods counted page by page as metadata only) and one pod
// count alone, against the loopback Kubernetes API of the tests holding BENCH_NODES nodes and
// BENCH_PODS pods, with the agent's RSS. Prints numbers; asserts nothing.
//   BENCH_NODES (default 5000), BENCH_PODS (default 150000)
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { build } from "esbuild";
import { FakeKubeApi } from "../../tests/helpers/fake-kube-api";
import { bigCluster } from "../../tests/helpers/kube-clusters";

const NODES = Number(process.env.BENCH_NODES ?? 5000);
const PODS = Number(process.env.BENCH_PODS ?? 150_000);

const dir = mkdtempSync(path.join(tmpdir(), "bench-agent-"));
const script = path.join(dir, "agent-count.mjs");
await build({
  entryPoints: [path.join(import.meta.dirname, "agent-count.ts")],
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  outfile: script,
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  // As scripts/build-agent.mjs does: a bundle outside the checkout cannot read package.json.
  define: {
    FLEET_AGENT_VERSION: JSON.stringify(
      (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { agentVersion: string }).agentVersion,
    ),
  },
  logLevel: "warning",
});
const api = await new FakeKubeApi(bigCluster(NODES, PODS), { tokens: ["bench"] }).start();
const kubeconfig = path.join(dir, "kubeconfig");
writeFileSync(kubeconfig, api.kubeconfig("bench"));
try {
  console.log(`cluster: ${NODES} nodes, ${PODS} pods (loopback API in this process; the agent in its own)`);
  // Asynchronous: this process serves the API while the agent reads it.
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, [script, kubeconfig], { stdio: ["ignore", "pipe", "inherit"] });
    let text = "";
    child.stdout.on("data", (c) => (text += c));
    child.on("exit", (code) => (code === 0 ? resolve(text) : reject(new Error(`exit ${code}`))));
  });
  const r = JSON.parse(out.trim().split("\n").at(-1)!) as Record<string, number>;
  const pages = api.requests.filter((q) => q.path === "/api/v1/pods").length;
  console.log(`full read (one round of the facts loop): ${r.collectMs} ms wall, ${r.collectCpuMs} ms of agent CPU`);
  console.log(
    `pod count alone: ${r.countMs} ms wall, ${r.countCpuMs} ms of agent CPU, for ${r.pods} pods in ${pages / 2} pages of 500 (metadata only)`,
  );
  console.log(`agent RSS: ${r.rssStartMiB} MiB at start, ${r.rssPeakMiB} MiB peak, ${r.rssEndMiB} MiB after`);
  console.log(`reported: ${r.nodes} nodes in ${r.pools} pools, ${r.userPods} user pods`);
} finally {
  await api.stop();
}
