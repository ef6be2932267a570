// The measured side of `npm run bench:agent`: reads a cluster once through a kubeconfig, the way
// the agent's facts loop does each round, then counts pods alone, and prints the time and the RSS.
// Bundled with esbuild and run with plain node, so the numbers are the agent's, not tsx's.
import { KubeCluster } from "../../lib/agent/kube/kube-cluster";
import { KubeClient } from "../../lib/agent/kube/kube-client";

const kubeconfig = process.argv[2]!;
const client = KubeClient.load({ kubeconfig, timeoutMs: 120_000 });
const cluster = new KubeCluster({
  client,
  agentVersion: "1.4.0",
  namespace: "fleet-system",
  deployment: "fleet-agent",
  allowNodeActions: false,
  now: Date.now,
  log: (level, code, message) => console.error(`${level} ${code} ${message}`),
});
const rssBefore = process.memoryUsage().rss;
let peakRss = rssBefore;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
// CPU time too: the loopback API shares the machine, so wall time includes its work.
let t = performance.now();
let cpu = process.cpuUsage();
const facts = await cluster.collect();
const collectMs = performance.now() - t;
const collectCpu = process.cpuUsage(cpu);
t = performance.now();
cpu = process.cpuUsage();
const pods = await cluster.countPods();
const countMs = performance.now() - t;
const countCpu = process.cpuUsage(cpu);
const ms = (u: NodeJS.CpuUsage) => Math.round((u.user + u.system) / 1000);
clearInterval(sampler);
peakRss = Math.max(peakRss, process.memoryUsage().rss);
client.close();
console.log(
  JSON.stringify({
    nodes: (facts.nodePools ?? []).reduce((n, p) => n + p.nodeCount, 0),
    pools: facts.nodePools?.length ?? 0,
    pods: pods.pods,
    userPods: pods.userPods,
    collectMs: Math.round(collectMs),
    countMs: Math.round(countMs),
    collectCpuMs: ms(collectCpu),
    countCpuMs: ms(countCpu),
    rssStartMiB: +(rssBefore / 2 ** 20).toFixed(1),
    rssPeakMiB: +(peakRss / 2 ** 20).toFixed(1),
    rssEndMiB: +(process.memoryUsage().rss / 2 ** 20).toFixed(1),
  }),
);
