// The measured side of `npm run bench:agent`: reads a cluster through a kubeconfig the way the
// agent's facts loop does, round after round, each within the round's deadline (BENCH_ROUND_MS,
// default the loop's own), and says after which round each part was first reported; then counts
// pods alone. Prints time, RSS and heap. Bundled with esbuild and run with plain node, so the
// numbers are the agent's, not tsx's.
import { FACTS_DEADLINE_MS } from "../../lib/agent/facts-loop";
import { KubeCluster } from "../../lib/agent/kube/kube-cluster";
import { KubeClient } from "../../lib/agent/kube/kube-client";

const kubeconfig = process.argv[2]!;
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? FACTS_DEADLINE_MS);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const client = KubeClient.load({ kubeconfig, timeoutMs: 120_000 });
const cluster = new KubeCluster({
  client,
  agentVersion: "1.4.0",
  namespace: "fleet-system",
  deployment: "fleet-agent",
  allowNodeActions: false,
  now: Date.now,
  log: (level, code, message) => level !== "debug" && console.error(`${level} ${code} ${message}`),
});
const mib = (bytes: number) => +(bytes / 2 ** 20).toFixed(1);
const rssBefore = process.memoryUsage().rss;
let peakRss = rssBefore;
let peakHeap = process.memoryUsage().heapUsed;
const sampler = setInterval(() => {
  const m = process.memoryUsage();
  peakRss = Math.max(peakRss, m.rss);
  peakHeap = Math.max(peakHeap, m.heapUsed);
}, 20);
const ms = (u: NodeJS.CpuUsage) => Math.round((u.user + u.system) / 1000);
// CPU time too: the loopback API shares the machine, so wall time includes its work.
const rounds: Record<string, number | null>[] = [];
let nodes = 0;
let pools = 0;
for (let i = 1; i <= ROUNDS; i++) {
  const t = performance.now();
  const cpu = process.cpuUsage();
  const facts = await cluster.collect(AbortSignal.timeout(ROUND_MS));
  nodes = (facts.nodePools ?? []).reduce((n, p) => n + p.nodeCount, 0);
  pools = facts.nodePools?.length ?? 0;
  const m = process.memoryUsage();
  rounds.push({
    round: i,
    ms: Math.round(performance.now() - t),
    cpuMs: ms(process.cpuUsage(cpu)),
    nodes: facts.nodePools ? nodes : null,
    pods: facts.workloads?.pods ?? null,
    rssMiB: mib(m.rss),
    heapMiB: mib(m.heapUsed),
  });
}
const t = performance.now();
const cpu = process.cpuUsage();
const pods = await cluster.countPods();
const countMs = performance.now() - t;
const countCpu = process.cpuUsage(cpu);
clearInterval(sampler);
peakRss = Math.max(peakRss, process.memoryUsage().rss);
cluster.close();
console.log(
  JSON.stringify({
    roundMs: ROUND_MS,
    rounds,
    nodes,
    pools,
    pods: pods.pods,
    userPods: pods.userPods,
    countMs: Math.round(countMs),
    countCpuMs: ms(countCpu),
    rssStartMiB: mib(rssBefore),
    rssPeakMiB: mib(peakRss),
    heapPeakMiB: mib(peakHeap),
    rssEndMiB: mib(process.memoryUsage().rss),
  }),
);
