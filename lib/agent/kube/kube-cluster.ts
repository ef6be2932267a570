import YAML from "yaml";
import { CLUSTER_INFO_NAME, KUBE_SYSTEM_NAMESPACE, METRICS_API_SERVICE_NAME } from "../../domain/agent-kube-calls";
import { clusterCapabilities, isDirectiveType, MAX_NODE_POOLS, type ClusterDirectiveType } from "../../domain/agent-protocol";
import { errorText } from "../../domain/error-text";
import { certificateFingerprint, firstPemBlock } from "../csr";
import type { AckEntry, ClusterBackend } from "../cluster-backend";
import { directiveParam, type Directive } from "../directives";
import type { ApiServerHealth, FactPart, FactsReport, NodePoolFacts } from "../facts";
import type { LogCode, LogFields, LogLevel } from "../log";
import { DirectiveRuns, type DirectiveState } from "./directive-state";
import {
  apiServerHealth,
  capNodePools,
  isLogCollector,
  kubernetesVersionOf,
  metricsAvailable,
  nodePoolsOf,
  type KubeApiService,
  type KubeDaemonSet,
  type PodCounts,
  type ReadyzResult,
} from "./facts-from-cluster";
import { ACCEPT_METADATA_LIST, KubeApiError, KubeTimeoutError, type KubeClient } from "./kube-client";
import { NodeWatch } from "./node-watch";
import { PodCountScan } from "./pod-count";
import { leaveCluster } from "./leave-cluster";
import { isTransientKubeError } from "./transient";
import { StateUnavailableError } from "../state";
import { drainOptionsOf } from "./drain-filters";
import { drainNodePoolRound } from "./node-pool-drain";
import { memoryUpgradeRecords, settleOwnUpgrade, upgradeRound, type SelfUpgrade, type UpgradeRecords } from "./self-upgrade";

// A real cluster behind the agent: reads the facts each heartbeat reports and carries out the
// directives the control plane sends, each idempotent and acknowledged only once done.

export type { DirectiveState } from "./directive-state";

export type { AckEntry } from "../cluster-backend";

export interface KubeClusterOptions {
  client: KubeClient;
  agentVersion: string;
  /**
   * The agent's namespace and Deployment (its own objects). Deployment null: the agent runs outside
   * the cluster (a kubeconfig on a laptop) and has no objects there; whatever agent is installed in
   * the cluster is not its own, so neither an upgrade nor a disconnect touches it.
   */
  namespace: string;
  deployment: string | null;
  allowNodeActions: boolean;
  /** Namespaces (or "prefix-") whose pods are not user pods, beyond the built-in ones. */
  systemNamespaces?: readonly string[];
  /** The agent's own pod's name (in a pod: the hostname), evicted last by a drain. */
  podName?: string | null;
  /** How long a drainNodePool may take before it fails with the pods left. */
  drainTimeoutMs?: number;
  /** Where an upgrade in progress records the image to restore (the state Secret); default: memory. */
  upgradeRecords?: UpgradeRecords;
  /** How long the new agent pod has to become Ready before the previous image is restored. */
  upgradeTimeoutMs?: number;
  now: () => number;
  log: (level: LogLevel, code: LogCode, message: string, fields?: LogFields) => void;
  /** When given, directives change the cluster only while this agent holds the Lease (one actor). */
  lease?: { readonly held: boolean };
  /** Pods above which the pod list is recounted only every `bigRecountMs`. */
  bigClusterPods?: number;
  bigRecountMs?: number;
}

/** Above this many pods, a full pod list every heartbeat would load the API server. */
export const BIG_CLUSTER_PODS = 5_000;
export const BIG_RECOUNT_MS = 5 * 60_000;
/** While a drain waits for user pods, they are recounted at least this often. */
const DRAIN_RECOUNT_MS = 60_000;
/** The most node pools a heartbeat may carry (the protocol's limit); the rest are summed into one. */
export const MAX_REPORTED_POOLS = MAX_NODE_POOLS;
/** A part of the facts and when it was read. */
type Part<T> = { value: T; readAt: number };

export const DRAIN_TIMEOUT_MS = 60 * 60_000;
export const UPGRADE_TIMEOUT_MS = 10 * 60_000;

export class KubeCluster implements ClusterBackend {
  readonly pace = "own";
  /** Each part of the facts as last read, with when: a part not read yet is absent from the report. */
  private readonly parts: {
    kubernetesVersion?: Part<string>;
    nodePools?: Part<NodePoolFacts[]>;
    namespaces?: Part<number>;
    pods?: Part<PodCounts>;
    apiServer?: Part<ApiServerHealth>;
    logs?: Part<boolean>;
    metrics?: Part<boolean>;
  } = {};
  private readonly nodeWatch: NodeWatch;
  private readonly podScan: PodCountScan;
  private foldedLogged = false;
  private readonly directives: DirectiveRuns;
  /** The kube-system namespace's UID, once read (it never changes). */
  private clusterUid: string | null = null;
  private clusterUidProblemLogged = false;

  private readonly upgradeRecords: UpgradeRecords;
  /** Set once an accepted heartbeat confirmed (or found nothing to confirm of) an upgrade to this version. */
  private upgradeSettled = false;

  constructor(private readonly o: KubeClusterOptions) {
    this.upgradeRecords = o.upgradeRecords ?? memoryUpgradeRecords();
    this.directives = new DirectiveRuns({
      now: o.now,
      log: o.log,
      step: (d, startedAt) => this.step(d, startedAt),
      mayAct: o.lease ? () => o.lease!.held : undefined,
    });
    this.nodeWatch = new NodeWatch({ client: o.client, log: o.log });
    this.podScan = new PodCountScan({ client: o.client, namespace: o.namespace, systemNamespaces: o.systemNamespaces });
  }

  /** Stops the watch of nodes and closes the keep-alive connection to the API server (the process can then exit). */
  close() {
    this.nodeWatch.close();
    this.o.client.close();
  }

  /** Every cluster directive; drainNodePool only with --allow-node-actions. */
  get capabilities(): ClusterDirectiveType[] {
    return clusterCapabilities({ nodeActions: this.o.allowNodeActions });
  }

  /** The API server's version as /version last gave it; none until it has answered once. */
  get kubernetesVersion(): string | undefined {
    return this.parts.kubernetesVersion?.value;
  }

  /** When /readyz was last asked (whatever it answered): how current the API server's health is. */
  get factsReadAt(): number {
    return this.parts.apiServer?.readAt ?? -Infinity;
  }

  // ---- identity ---------------------------------------------------------------------------

  /** sha256 of the cluster CA this agent trusts for its API server (in-cluster ca.crt or the kubeconfig's). */
  caFingerprint(): string | null {
    const pem = this.o.client.caPem();
    const first = pem ? firstPemBlock(pem) : null;
    return first ? certificateFingerprint(first) : null;
  }

  /** The server published in kube-public/cluster-info, else the one this client talks to. */
  async apiServerUrl(): Promise<string> {
    try {
      const res = await this.o.client.request(
        "getClusterInfo",
        `/api/v1/namespaces/kube-public/configmaps/${CLUSTER_INFO_NAME}`,
        {
          allow: [404, 403],
        },
      );
      const data = (res.body as { data?: { kubeconfig?: string } } | null)?.data;
      if (res.status === 200 && data?.kubeconfig) {
        const parsed = YAML.parse(data.kubeconfig) as { clusters?: { cluster?: { server?: string } }[] } | null;
        const server = parsed?.clusters?.[0]?.cluster?.server;
        if (server && server.startsWith("https://")) return server;
      }
    } catch (err) {
      this.o.log("warn", "KUBE_API_ERROR", `could not read kube-public/cluster-info: ${errorText(err)}`);
    }
    return this.o.client.server;
  }

  /**
   * The kube-system namespace's UID: the cluster's own identity, which the control plane uses to
   * flag one cluster registered twice. Read until it answers; a failure (an older manifest
   * without the grant, say) is logged once and the facts go out without it.
   */
  private async readClusterUid(signal?: AbortSignal, waitWhenBusy = false): Promise<void> {
    if (this.clusterUid) return;
    try {
      const res = await this.o.client.request("getKubeSystemNamespace", `/api/v1/namespaces/${KUBE_SYSTEM_NAMESPACE}`, {
        signal,
      });
      const uid = (res.body as { metadata?: { uid?: unknown } } | null)?.metadata?.uid;
      if (typeof uid !== "string" || !uid) throw new Error("the namespace has no metadata.uid");
      this.clusterUid = uid.toLowerCase();
    } catch (err) {
      if (waitWhenBusy && isTransientKubeError(err))
        throw new StateUnavailableError(`the API server cannot tell the cluster's identity now: ${errorText(err)}`);
      if (this.clusterUidProblemLogged || signal?.aborted) return;
      this.clusterUidProblemLogged = true;
      this.o.log(
        "warn",
        "CLUSTER_UID_UNKNOWN",
        `could not read the kube-system namespace's UID (${errorText(err)}): reporting without clusterUid, so the console cannot tell whether this cluster is registered twice; the manifest grants "get" on namespaces/kube-system`,
      );
    }
  }

  /**
   * The cluster's identity for the agent's state (agent.ts, bindToCluster): read now, before
   * anything acts as the stored cluster. A busy API server is waited for (StateUnavailableError);
   * a refusal (an older manifest's RBAC) is null, logged once.
   */
  async clusterIdentity(): Promise<string | null> {
    await this.readClusterUid(undefined, true);
    return this.clusterUid;
  }

  // ---- facts ------------------------------------------------------------------------------

  private async readyz(signal?: AbortSignal): Promise<ReadyzResult> {
    try {
      const res = await this.o.client.request("readyz", "/readyz", {
        text: true,
        accept: "text/plain",
        allow: [500, 503],
        signal,
      });
      return { status: res.status, latencyMs: res.latencyMs };
    } catch (err) {
      if (err instanceof KubeApiError) return { status: err.status, latencyMs: 0 };
      // Abandoned at the round's deadline is slow too, not gone.
      return { error: errorText(err), timedOut: err instanceof KubeTimeoutError || !!signal?.aborted };
    }
  }

  private podRecountDue(now: number): boolean {
    const pods = this.parts.pods;
    if (!pods || this.podScan.underWay) return true;
    const big = pods.value.pods >= (this.o.bigClusterPods ?? BIG_CLUSTER_PODS);
    let every = big ? (this.o.bigRecountMs ?? BIG_RECOUNT_MS) : 0;
    if (this.directives.running("drain")) every = Math.min(every, DRAIN_RECOUNT_MS);
    return now - pods.readAt >= every;
  }

  /** Counts non-terminal pods page by page, reading metadata only, to the end (the benchmark's). */
  async countPods(signal?: AbortSignal): Promise<PodCounts> {
    const scan = new PodCountScan({
      client: this.o.client,
      namespace: this.o.namespace,
      systemNamespaces: this.o.systemNamespaces,
    });
    const counts = await scan.run(signal);
    if (!counts) throw signal?.reason ?? new Error("the pod count was abandoned");
    return counts;
  }

  /**
   * The parts of the facts other than /readyz, in the order a round reads them: the cheap ones
   * first, the pod count (tens of seconds on a very big cluster) last. Each is kept as soon as
   * it is read.
   */
  private readonly readers: { part: string; read: (signal: AbortSignal | undefined, now: number) => Promise<void> }[] = [
    {
      part: "version",
      read: async (signal, now) => {
        const body = (await this.o.client.request("version", "/version", { signal })).body as { gitVersion?: string } | null;
        const version = kubernetesVersionOf(body?.gitVersion);
        if (!version) throw new Error(`the API server's /version gitVersion "${body?.gitVersion ?? ""}" is not a version`);
        this.parts.kubernetesVersion = { value: version, readAt: now };
      },
    },
    {
      part: "nodes",
      read: async (signal, now) => {
        await this.nodeWatch.sync(signal);
        const { pools, folded } = capNodePools(nodePoolsOf(this.nodeWatch.current), MAX_REPORTED_POOLS);
        if (folded && !this.foldedLogged) {
          this.foldedLogged = true;
          this.o.log(
            "info",
            "NODE_POOLS_FOLDED",
            `this cluster has more node pools than a heartbeat may carry (${MAX_REPORTED_POOLS}): reporting the ${MAX_REPORTED_POOLS - 1} largest and "other" with the totals of the remaining ${folded}`,
          );
        }
        this.parts.nodePools = { value: pools, readAt: now };
      },
    },
    {
      part: "namespaces",
      read: async (signal, now) => {
        const namespaces = await this.o.client.listPages(
          "listNamespaces",
          "/api/v1/namespaces",
          () => ({ n: 0 }),
          (into, items) => (into.n += items.length),
          { accept: ACCEPT_METADATA_LIST, signal },
        );
        this.parts.namespaces = { value: namespaces.n, readAt: now };
      },
    },
    {
      part: "DaemonSets",
      read: async (signal, now) => {
        const daemonSets = await this.o.client.listPages<KubeDaemonSet, KubeDaemonSet[]>(
          "listDaemonSets",
          "/apis/apps/v1/daemonsets",
          () => [],
          (into, items) => into.push(...items),
          { signal },
        );
        this.parts.logs = { value: daemonSets.some(isLogCollector), readAt: now };
      },
    },
    {
      part: "metrics APIService",
      read: async (signal, now) => {
        const metrics = await this.o.client.request(
          "getMetricsApiService",
          `/apis/apiregistration.k8s.io/v1/apiservices/${METRICS_API_SERVICE_NAME}`,
          { allow: [404], signal },
        );
        this.parts.metrics = {
          value: metricsAvailable(metrics.status === 200 ? (metrics.body as KubeApiService) : null),
          readAt: now,
        };
      },
    },
    {
      part: "pods",
      read: async (signal, now) => {
        if (!this.podRecountDue(now)) return;
        const counts = await this.podScan.run(signal);
        if (counts) this.parts.pods = { value: counts, readAt: now };
        else if (!this.podScan.underWay) return;
        else this.o.log("debug", "FACTS_PART_PENDING", `the pod count goes on next round (${this.podScan.pages} pages so far)`);
      },
    },
  ];

  /**
   * Reads the cluster's facts, part by part, each kept as soon as it is read; `signal` abandons
   * the rest (its round's deadline), and the pod count goes on next round where it stopped. A
   * part that fails keeps its last value: /readyz alone says how the API server is, so a list
   * that fails while /readyz is fine is not "degraded", and one that does not answer at all is
   * "down" (the heartbeat still goes out: the agent is alive, its cluster is not).
   */
  async collect(signal?: AbortSignal): Promise<FactsReport> {
    const now = this.o.now();
    this.parts.apiServer = { value: apiServerHealth(await this.readyz(signal)), readAt: now };
    await this.readClusterUid(signal);
    for (const { part, read } of this.readers) {
      if (signal?.aborted) {
        this.o.log(
          "warn",
          "KUBE_API_ERROR",
          `could not read the cluster's ${part} and what follows: ${errorText(signal.reason)}`,
        );
        break;
      }
      try {
        await read(signal, now);
      } catch (err) {
        this.o.log(
          "warn",
          "KUBE_API_ERROR",
          `could not read the cluster's ${part}: ${errorText(signal?.aborted ? signal.reason : err)}`,
        );
      }
    }
    return this.report();
  }

  /** The parts read so far (absent: not read yet), with the newest /readyz verdict and each part's age. */
  report(): FactsReport {
    const p = this.parts;
    const now = this.o.now();
    const factAges: Partial<Record<FactPart, number>> = {};
    for (const [name, part] of Object.entries(p) as [FactPart, Part<unknown> | undefined][])
      if (part) factAges[name] = Math.max(0, Math.round((now - part.readAt) / 1000));
    return {
      agentVersion: this.o.agentVersion,
      ...(p.kubernetesVersion ? { kubernetesVersion: p.kubernetesVersion.value } : {}),
      ...(p.nodePools ? { nodePools: p.nodePools.value } : {}),
      ...(p.pods && p.namespaces
        ? { workloads: { pods: p.pods.value.pods, namespaces: p.namespaces.value, userPods: p.pods.value.userPods } }
        : {}),
      ...(p.apiServer
        ? {
            health: {
              apiServer: p.apiServer.value,
              ...(p.logs ? { logs: p.logs.value } : {}),
              ...(p.metrics ? { metrics: p.metrics.value } : {}),
            },
          }
        : {}),
      ...(this.clusterUid ? { clusterUid: this.clusterUid } : {}),
      ...(Object.keys(factAges).length ? { factAges } : {}),
    };
  }

  // ---- directives -------------------------------------------------------------------------

  /** Starts a directive (called once per id); progress() carries it on. disconnect is the agent's. */
  start(d: Directive) {
    this.o.log("info", "DIRECTIVE_RECEIVED", `directive ${d.type}: carrying it out in the cluster`, { id: d.id, type: d.type });
    this.directives.start(d);
  }

  /** Advances every running directive one step; called before each heartbeat, after collect(). */
  progress(): Promise<void> {
    return this.directives.progress();
  }

  /** The acks to send for these ids: running ones are held back, failed ones carry their reason. */
  ackEntries(ids: string[]): AckEntry[] {
    return this.directives.ackEntries(ids);
  }

  private async step(d: Directive, startedAt: number): Promise<DirectiveState> {
    if (!isDirectiveType(d.type) || !Object.hasOwn(KUBE_DIRECTIVE_STEPS, d.type))
      return { state: "failed", reason: `this agent does not know the directive type "${d.type}"` };
    return KUBE_DIRECTIVE_STEPS[d.type as ClusterDirectiveType](this, d, startedAt);
  }

  /** A drain: the platform's own tooling moves the workloads; the agent only reports them until none is left. */
  drainStep(): DirectiveState {
    return this.parts.pods?.value.userPods === 0 ? { state: "done" } : { state: "running" };
  }

  /** The deregistration was cancelled: stop waiting for a drain. */
  resumeStep(): DirectiveState {
    this.directives.finish("drain");
    return { state: "done" };
  }

  private deploymentPath() {
    return `/apis/apps/v1/namespaces/${this.o.namespace}/deployments/${this.o.deployment}`;
  }

  private selfUpgrade(deployment: string): SelfUpgrade {
    return {
      client: this.o.client,
      namespace: this.o.namespace,
      deployment,
      agentVersion: this.o.agentVersion,
      records: this.upgradeRecords,
      timeoutMs: this.o.upgradeTimeoutMs ?? UPGRADE_TIMEOUT_MS,
      now: this.o.now(),
      log: this.o.log,
    };
  }

  async upgrade(d: Directive): Promise<DirectiveState> {
    if (this.o.deployment === null) {
      return {
        state: "failed",
        reason:
          "this agent runs outside the cluster (--kubeconfig) and has no Deployment there to upgrade: upgrade the program where it runs; an agent installed in the cluster is not this one",
      };
    }
    return upgradeRound(this.selfUpgrade(this.o.deployment), d);
  }

  /** An upgrade to this version is confirmed by its first accepted heartbeat, or undone past its deadline. */
  async afterHeartbeat(accepted: boolean): Promise<void> {
    if (this.upgradeSettled || this.o.deployment === null) return;
    try {
      await settleOwnUpgrade(this.selfUpgrade(this.o.deployment), accepted);
      if (accepted) this.upgradeSettled = true;
    } catch (err) {
      this.o.log("warn", "KUBE_API_ERROR", `could not settle this version's upgrade record: ${errorText(err)}`);
    }
  }

  async drainNodePool(d: Directive, startedAt: number): Promise<DirectiveState> {
    if (!this.o.allowNodeActions) {
      return {
        state: "failed",
        reason:
          "node actions are off on this agent: run it with --allow-node-actions and the fleet-agent-node-actions ClusterRole",
      };
    }
    // Seen before the nodes were first read (right after a start): wait for them, within the deadline.
    if (!this.parts.nodePools) {
      const timeoutMs = this.o.drainTimeoutMs ?? DRAIN_TIMEOUT_MS;
      if (this.o.now() - startedAt < timeoutMs) return { state: "running" };
      return {
        state: "failed",
        reason: `the cluster's nodes could not be read within ${Math.round(timeoutMs / 1000)} s: nothing was cordoned`,
      };
    }
    return drainNodePoolRound(
      {
        client: this.o.client,
        nodes: this.nodeWatch.current,
        ownPod: this.o.podName ? { namespace: this.o.namespace, name: this.o.podName } : null,
        startedAt,
        timeoutMs: this.o.drainTimeoutMs ?? DRAIN_TIMEOUT_MS,
        options: drainOptionsOf({
          force: directiveParam(d, "force"),
          deleteEmptyDirData: directiveParam(d, "deleteEmptyDirData"),
        }),
        now: this.o.now(),
        log: this.o.log,
      },
      directiveParam(d, "nodePool") ?? directiveParam(d, "name"),
      d.id,
    );
  }

  // ---- disconnect ---------------------------------------------------------------------------

  /** After a disconnect: scale the agent to 0 and delete its role bindings (leave-cluster.ts). */
  async leave(): Promise<void> {
    if (this.o.deployment === null) {
      this.o.log(
        "info",
        "OUTSIDE_CLUSTER",
        "run from outside the cluster (--kubeconfig): nothing in the cluster is this agent's, so nothing there was scaled or deleted; an agent installed in the cluster, if any, is left as it is",
      );
      return;
    }
    await leaveCluster({
      client: this.o.client,
      namespace: this.o.namespace,
      deployment: this.o.deployment,
      allowNodeActions: this.o.allowNodeActions,
      log: this.o.log,
    });
  }
}

/**
 * One step of each cluster directive of the protocol's table (lib/domain/agent-protocol.ts), in a
 * real cluster: typed by the table, so a new type does not compile until it is here. Each step is
 * idempotent; it is repeated every round until done or failed.
 */
export const KUBE_DIRECTIVE_STEPS: {
  [T in ClusterDirectiveType]: (k: KubeCluster, d: Directive, startedAt: number) => DirectiveState | Promise<DirectiveState>;
} = {
  upgrade: (k, d) => k.upgrade(d),
  drain: (k) => k.drainStep(),
  resume: (k) => k.resumeStep(),
  drainNodePool: (k, d, startedAt) => k.drainNodePool(d, startedAt),
};
