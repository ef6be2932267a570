// `npm run agent -- --server URL --token-file F --name N ...`: the reference agent as a process.
// A thin wrapper: flags -> the cluster behind the agent -> FleetAgent -> exit code. All behaviour
// lives in agent.ts and the backends.
import os from "node:os";
import { AGENT_USAGE, parseAgentArgs, UsageError, wantsHelp, wantsVersion } from "./args";
import { EXIT_CODES, FleetAgent } from "./agent";
import { systemClock } from "./clock";
import { resolveClusterCaFingerprint } from "./cluster-ca";
import { ConfigError } from "./errors";
import { startHealthServer } from "./health";
import { configureProxy } from "./http";
import { consoleLogger, type AgentLogger } from "./log";
import { AgentMetrics } from "./metrics";
import { PreflightGate } from "./preflight";
import { FileStateStore, type StateStore } from "./state";
import { fileTokenSource } from "./token";
import type { AgentArgs } from "./args";
import type { FleetAgentOptions } from "./agent";
import type { AgentLease } from "./kube/agent-lease";
import { AGENT_OBJECT_NAMES } from "../domain/agent-kube-calls";
import { errorText } from "../domain/error-text";
import { readCaFile, type TrustSpec } from "./trust";
import { AGENT_VERSION } from "./version";

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  if (wantsHelp(argv)) {
    console.log(AGENT_USAGE);
    return EXIT_CODES.ok;
  }
  if (wantsVersion(argv)) {
    console.log(AGENT_VERSION);
    return EXIT_CODES.ok;
  }
  let args;
  try {
    args = parseAgentArgs(argv, process.env);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error(`fleet-agent CONFIG_INVALID ${err.message}\n\n${AGENT_USAGE}`);
    return EXIT_CODES.config;
  }
  // Metrics are made before the agent and its Lease (they read both at scrape time) and see every
  // log entry before the level filter.
  const live: { agent?: FleetAgent; lease?: AgentLease } = {};
  const metrics = args.metrics
    ? new AgentMetrics({
        version: AGENT_VERSION,
        ready: () => !!live.agent?.ready,
        lease: () =>
          live.lease
            ? {
                held: live.lease.held,
                holder: live.lease.lastRecord?.holder ?? null,
                transitions: live.lease.lastRecord?.transitions ?? null,
              }
            : null,
      })
    : null;
  const output = consoleLogger({ level: args.logLevel, format: args.logFormat, fields: { cluster: args.name } });
  const logger = metrics ? metrics.logger(output) : output;

  try {
    configureProxy({
      connectTimeoutMs: args.timeoutSeconds * 1000,
      caPem: args.proxyCaFile ? await readProxyCaFile(args.proxyCaFile) : undefined,
    });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    logger.log({ level: "error", code: err.code, message: err.message });
    return EXIT_CODES.config;
  }

  let trust: TrustSpec;
  try {
    trust = args.caFile
      ? { caPem: await readCaFile(args.caFile) }
      : args.caFingerprint
        ? { caFingerprint: args.caFingerprint }
        : { fromState: true };
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    logger.log({ level: "error", code: err.code, message: err.message });
    return EXIT_CODES.config;
  }

  let setup: Pick<FleetAgentOptions, "store" | "token" | "clusterCaFingerprint" | "apiServerUrl" | "cluster"> & {
    lease?: AgentLease;
    /** Closes the keep-alive connection to the API server (the process can then exit). */
    close?: () => void;
  };
  try {
    setup = args.facts === "kubernetes" ? await kubernetesCluster(args, logger) : await simulatedCluster(args, logger);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    logger.log({ level: "error", code: err.code, message: err.message });
    return EXIT_CODES.config;
  }

  // Instrumented once: an agent made anew after stepping down reports into the same series.
  const cluster = metrics ? metrics.instrument(setup.cluster) : setup.cluster;
  const makeAgent = () => {
    const made = new FleetAgent({
      server: args.server,
      name: args.name,
      labels: args.labels,
      kubernetesVersion: args.kubernetesVersion,
      // In a Deployment (state in a Secret) an exit only restarts the pod into the same refusal.
      idleWhenRefused: !!args.stateSecret,
      trust,
      heartbeatIntervalSeconds: args.heartbeatIntervalSeconds,
      requestTimeoutMs: args.timeoutSeconds * 1000,
      logger,
      store: setup.store,
      token: setup.token,
      clusterCaFingerprint: setup.clusterCaFingerprint,
      apiServerUrl: setup.apiServerUrl,
      cluster,
      lease: setup.lease,
      hooks: metrics?.hooks(),
    });
    live.agent = made;
    return made;
  };
  let agent = makeAgent();
  live.lease = setup.lease;
  const stopping = new AbortController();
  for (const signal of ["SIGTERM", "SIGINT"] as const)
    process.once(signal, () => {
      stopping.abort();
      agent.stop();
    });
  // Ready: heartbeating, or a standby waiting for the Lease once its preflight passed (an
  // upgrade's new pod must turn Ready for the rollout to stop the old agent that holds it, and
  // only a version that works may: the old one is the one that rolls back).
  const preflight = setup.lease
    ? new PreflightGate({
        store: setup.store,
        server: args.server,
        timeoutMs: args.timeoutSeconds * 1000,
        everyMs: STANDBY_PREFLIGHT_MS,
        when: () => !!setup.lease?.standby,
        sleep: (ms, signal) => systemClock.sleep(ms, signal),
        log: (level, code, message, fields) => logger.log({ level, code, message, fields }),
      })
    : null;
  void preflight?.run(stopping.signal);
  const readiness = {
    get ready() {
      return agent.ready || (!!setup.lease?.standby && !!preflight?.passed);
    },
    ...(metrics ? { metrics: () => metrics.render() } : {}),
    get reason() {
      return agent.notReadyReason;
    },
  };
  const health = args.healthPort ? await startHealthServer(args.healthPort, readiness) : null;
  let exitCode: number = EXIT_CODES.ok;
  while (!setup.lease || (await setup.lease.acquire(stopping.signal))) {
    // Renewals that fail do not end the run (heartbeats go on); another agent seen holding the
    // Lease does: this one steps down to a standby and waits for the Lease again.
    let steppedDown = false;
    const renewal = new AbortController();
    const stopRenewing = () => renewal.abort();
    stopping.signal.addEventListener("abort", stopRenewing, { once: true });
    const renewing = setup.lease?.keepRenewing(renewal.signal, () => {
      steppedDown = true;
      agent.stop();
    });
    const result = await agent.run();
    renewal.abort();
    stopping.signal.removeEventListener("abort", stopRenewing);
    await renewing;
    if (steppedDown && !stopping.signal.aborted) {
      agent = makeAgent();
      continue;
    }
    // After a disconnect the agent's bindings are gone (and with them the right to update the Lease).
    if (result.outcome !== "disconnected" && result.outcome !== "deregistered") await setup.lease?.release();
    exitCode = result.exitCode;
    break;
  }
  // Ends what runs beside the agent (the standby's preflight), so the process can exit.
  stopping.abort();
  health?.close();
  setup.close?.();
  return exitCode;
}

/** How often a standby repeats a failed preflight: the readiness probe's own pace. */
const STANDBY_PREFLIGHT_MS = 10_000;

/** The --proxy-ca-file bundle: PEM certificates, read once at start. */
async function readProxyCaFile(file: string): Promise<string> {
  const { readFile } = await import("node:fs/promises");
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    throw new ConfigError("CONFIG_INVALID", `--proxy-ca-file ${file} cannot be read: ${errorText(err)}`);
  }
  if (!text.includes("-----BEGIN CERTIFICATE-----"))
    throw new ConfigError("CONFIG_INVALID", `--proxy-ca-file ${file} holds no PEM certificate`);
  return text;
}

/** Made-up facts (the simulator's cluster): state and token in files. Loaded on demand, like the real one. */
async function simulatedCluster(args: AgentArgs, logger: AgentLogger) {
  const { simulatedBackend } = await import("./simulator/simulated-backend");
  const stateDir = args.stateDir!;
  return {
    cluster: simulatedBackend({
      name: args.name,
      agentVersion: args.agentVersion,
      kubernetesVersion: args.kubernetesVersion,
      clusterUid: args.clusterUid,
    }),
    store: new FileStateStore(stateDir),
    token: fileTokenSource(args.tokenFile),
    apiServerUrl: args.apiServerUrl,
    clusterCaFingerprint: () => resolveClusterCaFingerprint({ file: args.clusterCaFile, stateDir, logger }),
  };
}

/**
 * The real cluster, through a kubeconfig or the pod's service account. Loaded on demand: the
 * Kubernetes client is ~100 packages a simulated agent does not need to start.
 */
async function kubernetesCluster(args: AgentArgs, logger: AgentLogger) {
  const [{ KubeCluster }, { KubeClient }, { parseSecretRef, SecretStateStore, secretTokenSource }, { AgentLease }] =
    await Promise.all([
      import("./kube/kube-cluster"),
      import("./kube/kube-client"),
      import("./kube/secret-state"),
      import("./kube/agent-lease"),
    ]);
  const client = KubeClient.load({
    kubeconfig: args.kubeconfig,
    serviceAccountDir: process.env.FLEET_AGENT_SERVICE_ACCOUNT_DIR,
    timeoutMs: args.timeoutSeconds * 1000,
  });
  const namespace = client.podNamespace ?? AGENT_OBJECT_NAMES.namespace;
  const [deploymentNs, deploymentName] = (args.deployment ?? `${namespace}/${AGENT_OBJECT_NAMES.deployment}`).split("/") as [
    string,
    string,
  ];
  logger.log({
    level: "info",
    code: "KUBE_CONFIG",
    message: `reading the cluster through the ${client.source}`,
    fields: { apiServer: client.server, nodeActions: args.allowNodeActions },
  });
  // Outside a pod the agent has no objects in the cluster: an install there is another agent's.
  const inPod = client.podNamespace !== null;
  if (!inPod) {
    logger.log({
      level: "info",
      code: "OUTSIDE_CLUSTER",
      message: `run from outside the cluster (${client.source}): this agent has no Deployment or role bindings there, so a disconnect leaves the cluster as it is and an upgrade directive fails; an agent installed in the cluster is not touched`,
    });
  }
  const stateRef = args.stateSecret ? parseSecretRef(args.stateSecret)! : null;
  // State in a Secret can be reached by several replicas: only the Lease's holder writes it.
  const lease = stateRef
    ? new AgentLease({
        client,
        namespace: stateRef.namespace,
        name: AGENT_OBJECT_NAMES.lease,
        identity: os.hostname(),
        leaseDurationSeconds: args.leaseDurationSeconds,
        retryPeriodMs: (args.leaseDurationSeconds * 1000) / 6,
        sleep: (ms, signal) => systemClock.sleep(ms, signal),
        log: (level, code, message, fields) => logger.log({ level, code, message, fields }),
      })
    : undefined;
  const secretStore = stateRef ? new SecretStateStore(client, stateRef, lease) : null;
  const store: StateStore = secretStore ?? new FileStateStore(args.stateDir!);
  const kube = new KubeCluster({
    client,
    agentVersion: args.agentVersion,
    namespace: deploymentNs,
    deployment: inPod ? deploymentName : null,
    allowNodeActions: args.allowNodeActions,
    systemNamespaces: args.systemNamespaces,
    drainTimeoutMs: args.drainTimeoutSeconds * 1000,
    // In a pod the hostname is the pod's name (as client-go's leader election assumes too).
    podName: client.podNamespace ? os.hostname() : null,
    // An upgrade's previous image is recorded where the state is, when that is in the cluster.
    upgradeRecords: secretStore ?? undefined,
    // Directives change the cluster only while this agent holds the Lease.
    lease,
    now: Date.now,
    log: (level, code, message, fields) => logger.log({ level, code, message, fields }),
  });
  const token = args.tokenSecret ? secretTokenSource(client, parseSecretRef(args.tokenSecret)!) : fileTokenSource(args.tokenFile);
  return {
    cluster: kube,
    close: () => kube.close(),
    lease,
    store,
    token,
    apiServerUrl: args.apiServerUrlGiven ? args.apiServerUrl : () => kube.apiServerUrl(),
    clusterCaFingerprint: async () => {
      if (args.clusterCaFile)
        return resolveClusterCaFingerprint({ file: args.clusterCaFile, stateDir: args.stateDir ?? "", logger });
      const fingerprint = kube.caFingerprint();
      if (!fingerprint) {
        throw new ConfigError(
          "CONFIG_INVALID",
          `the ${client.source} names no CA for the API server, so the cluster has no identity to report: add its certificate-authority, or pass --cluster-ca-file`,
        );
      }
      logger.log({ level: "info", code: "CLUSTER_CA", message: `cluster CA from the ${client.source}`, fields: { fingerprint } });
      return fingerprint;
    },
  };
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(`fleet-agent AGENT_FAILED ${errorText(err)}`);
    process.exitCode = EXIT_CODES.failed;
  },
);
