// npm run bench:agent — the in-cluster agent on a big cluster: rounds of the facts loop (nodes listed
// then watched, namespaces, DaemonSets, metrics APIService, /readyz, pods counted page by page as
// metadata only and carried across rounds), each within the round's deadline, then one pod count
// alone, against the loopback Kubernetes API of the tests holding BENCH_NODES nodes and BENCH_PODS
// pods, with the agent's RSS and heap against the manifest's memory limit. Prints numbers; asserts
// nothing.
//   BENCH_NODES (default 5000), BENCH_PODS (default 150000), BENCH_ROUND_MS (default: the loop's
//   deadline), BENCH_ROUNDS (default 4)
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { build } from "esbuild";
import { FakeKubeApi } from "../../tests/helpers/fake-kube-api";
import { bigCluster } from "../../tests/helpers/kube-clusters";
import { parseQuantity } from "../../lib/agent/kube/quantity";
import { agentManifestObjects } from "../../lib/domain/agent-manifest";

/** The agent container's memory limit in the console's manifest. */
function memoryLimitMiB(): number {
  const deployment = agentManifestObjects({
    agentUrl: "https://fleet.example.com:8443",
    caFingerprint: `sha256:${"0".repeat(64)}`,
    agentImage: "fleet-registry/agent:1.4.0",
    clusterName: "bench",
    labels: {},
    token: "bench",
  }).find((o) => o.kind === "Deployment") as unknown as {
    spec: { template: { spec: { containers: { resources?: { limits?: { memory?: string } } }[] } } };
  };
  const limit = deployment.spec.template.spec.containers[0]?.resources?.limits?.memory;
  return (parseQuantity(limit) ?? 0) / 2 ** 20;
}

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
  type Round = {
    round: number;
    ms: number;
    cpuMs: number;
    nodes: number | null;
    pods: number | null;
    rssMiB: number;
    heapMiB: number;
  };
  const r = JSON.parse(out.trim().split("\n").at(-1)!) as { rounds: Round[] } & Record<
    | "roundMs"
    | "nodes"
    | "pools"
    | "pods"
    | "userPods"
    | "countMs"
    | "countCpuMs"
    | "rssStartMiB"
    | "rssPeakMiB"
    | "heapPeakMiB"
    | "rssEndMiB",
    number
  >;
  const listed = (p: string) => api.requests.filter((q) => q.path === p && !q.query.watch).length;
  const limitMiB = memoryLimitMiB();
  console.log(`rounds of the facts loop, each within ${r.roundMs / 1000} s:`);
  for (const x of r.rounds) {
    console.log(
      `  round ${x.round}: ${x.ms} ms wall, ${x.cpuMs} ms CPU; nodes ${x.nodes ?? "not yet read"}, pods ${x.pods ?? "not yet read"}; RSS ${x.rssMiB} MiB, heap ${x.heapMiB} MiB`,
    );
  }
  const first = (key: "nodes" | "pods") => r.rounds.find((x) => x[key] !== null)?.round ?? "never";
  console.log(`first reported: nodes in round ${first("nodes")} (bar: 1), pods in round ${first("pods")} (bar: 3 or sooner)`);
  console.log(`node LISTs: ${listed("/api/v1/nodes")} page requests in all rounds (a watch keeps them current after the first)`);
  console.log(
    `pod count alone: ${r.countMs} ms wall, ${r.countCpuMs} ms of agent CPU, for ${r.pods} pods (metadata only, pages of 500)`,
  );
  console.log(
    `agent memory: RSS ${r.rssStartMiB} MiB at start, ${r.rssPeakMiB} MiB peak, ${r.rssEndMiB} MiB after; heap peak ${r.heapPeakMiB} MiB`,
  );
  console.log(
    `manifest memory limit ${limitMiB} MiB: peak RSS is ${Math.round((100 * r.rssPeakMiB) / limitMiB)}% of it (bar: under 50%)`,
  );
  console.log(`reported: ${r.nodes} nodes in ${r.pools} pools, ${r.userPods} user pods`);
} finally {
  await api.stop();
}
