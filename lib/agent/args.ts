import { parseArgs } from "node:util";
import { DNS_LABEL, labelKeyProblem, labelValueProblem } from "../domain/labels";
import { DEFAULT_KUBERNETES_VERSION, isSemver } from "../domain/semver";
import { CLUSTER_UID } from "../domain/agent-protocol";
import { normalizeFingerprint } from "./csr";
import { isLogFormat, isLogLevel, type LogFormat, type LogLevel } from "./log";
import { AGENT_VERSION } from "./version";

// The agent's command line, parsed and validated up front so a typo fails at start with the
// flag's name rather than as a server error later. The simulator's reuses these parsers
// (simulator/simulate-args.ts).

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

export const DEFAULTS = {
  apiServerUrl: "https://kubernetes.default.svc:443",
  kubernetesVersion: DEFAULT_KUBERNETES_VERSION,
  timeoutSeconds: 15,
  drainTimeoutSeconds: 3_600,
  leaseDurationSeconds: 30,
} as const;

export type FactsSource = "kubernetes" | "simulated";

export interface AgentArgs {
  server: URL;
  tokenFile?: string;
  /** ns/name of the token's Secret (in a cluster). */
  tokenSecret?: string;
  name: string;
  labels: Record<string, string>;
  /** Exactly one of stateDir and stateSecret. */
  stateDir?: string;
  stateSecret?: string;
  facts: FactsSource;
  kubeconfig?: string;
  /** ns/name of the agent's own Deployment (upgrade patches it, disconnect scales it to 0). */
  deployment?: string;
  allowNodeActions: boolean;
  /** Namespaces (or prefixes ending in "-") whose pods are not user pods, beyond the built-in ones. */
  systemNamespaces: string[];
  /** How long a drainNodePool may take before it is failed with the pods still left. */
  drainTimeoutSeconds: number;
  /** Port of the /healthz and /readyz probe endpoint (off when absent). */
  healthPort?: number;
  /** True when --api-server-url was given (else the cluster's own URL is looked up). */
  apiServerUrlGiven: boolean;
  caFile?: string;
  caFingerprint?: string;
  clusterCaFile?: string;
  apiServerUrl: string;
  agentVersion: string;
  kubernetesVersion: string;
  /** The kube-system UID a simulated cluster reports (default: derived from --name). */
  clusterUid?: string;
  heartbeatIntervalSeconds?: number;
  timeoutSeconds: number;
  /** The Lease's duration (state in a Secret); renewed every sixth of it. */
  leaseDurationSeconds: number;
  logLevel: LogLevel;
  logFormat: LogFormat;
  /** Serve Prometheus metrics at /metrics on the health port. */
  metrics: boolean;
  /** CA bundle (PEM) that an https:// proxy's certificate is verified against, beside Node's roots. */
  proxyCaFile?: string;
}

export const AGENT_USAGE = `Usage: npm run agent -- --server URL --name NAME (--state-dir DIR | --state-secret NS/NAME) (--ca-file FILE | --ca-fingerprint sha256:HEX) [options]

  --server URL               the fleet's agent endpoint, e.g. https://127.0.0.1:8443
  --token-file FILE          registration token (needed until registered; deleted after success)
  --token-secret NS/NAME     the token in a Secret (key "token"), deleted through the API once used
  --name NAME                cluster name, a DNS-1123 label (lowercase, digits, '-', at most 63)
  --labels k=v,...           labels to register with, e.g. env=prod,region=eu-west-1
  --state-dir DIR            where the key, certificate and cluster id are kept (0700)
  --state-secret NS/NAME     keep them in this Secret instead (in a cluster; created empty by the manifest)
  --kubeconfig FILE          read the cluster through this kubeconfig (default: KUBECONFIG, else the
                             pod's service account when running in a cluster)
  --facts kubernetes|simulated
                             report the cluster's real facts (default when a kubeconfig or a pod's
                             service account is there) or made-up ones (demos, tests)
  --deployment NS/NAME       the agent's own Deployment in a pod (default: <pod namespace>/fleet-agent);
                             run from outside the cluster the agent has none and changes nothing of it
  --allow-node-actions       carry out drainNodePool (cordon and evict; needs the node-actions ClusterRole)
  --drain-timeout S          fail a drainNodePool whose pods are not all gone after S seconds
                             (default ${DEFAULTS.drainTimeoutSeconds})
  --system-namespaces a,b-   more namespaces whose pods a drain does not wait for (a trailing "-"
                             makes a prefix), beyond kube-*, openshift-*, gke-*, gmp-*, cattle-*,
                             calico-system, tigera-operator and gatekeeper-system
  --health-port P            serve /healthz (the process answers) and /readyz (registered, heartbeating)
  --metrics                  also serve Prometheus metrics at /metrics on the health port
  --proxy-ca-file FILE       CA bundle (PEM) for an https:// HTTPS_PROXY's own certificate
  --ca-file FILE             trust exactly this fleet CA (PEM)
  --ca-fingerprint sha256:H  fetch the fleet CA once and trust it only if its SHA-256 matches
  --cluster-ca-file FILE     this cluster's own CA (default: in-cluster service account CA,
                             else a simulated CA kept in the state dir)
  --api-server-url URL       reported API server URL (metadata only; default: kube-public/cluster-info's
                             server, else the kubeconfig's; ${DEFAULTS.apiServerUrl} when simulated)
  --agent-version V          reported agent version, simulated facts only (default: this build's,
                             ${AGENT_VERSION}; a real cluster's agent reports its own build)
  --kubernetes-version V     reported Kubernetes version, simulated facts only (default ${DEFAULTS.kubernetesVersion})
  --cluster-uid UID          reported kube-system namespace UID, simulated facts only (default: derived
                             from --name; give two agents one UID to show a cluster registered twice)
  --version                  print this build's version and exit
  --heartbeat-interval S     override the server's heartbeat interval (seconds)
  --timeout S                per-request timeout in seconds (default ${DEFAULTS.timeoutSeconds})
  --lease-duration S         the Lease's duration with --state-secret: renewed every sixth of it, taken
                             over by a standby after it (default ${DEFAULTS.leaseDurationSeconds})
  --log-level L              debug | info | warn | error (default info)
  --log-format F             text (default) | json: one object per line (time, level, code, message, fields)

Exit codes: 0 stopped, disconnected or deregistered; 1 unexpected failure; 2 configuration
error; 3 registration refused (token, labels, name conflict, denied by an operator).`;

/** --help / -h anywhere: print usage instead of parsing. */
export function wantsHelp(argv: string[]): boolean {
  return argv.includes("--help") || argv.includes("-h");
}

/** --version anywhere: print the build's version instead of parsing. */
export function wantsVersion(argv: string[]): boolean {
  return argv.includes("--version");
}

export function fail(message: string): never {
  throw new UsageError(message);
}

type StringOptions = Record<string, { type: "string" }>;

/** Every flag takes a value but the named booleans; unknown flags and positionals are errors. */
export function parse(
  argv: string[],
  names: readonly string[],
  booleans: readonly string[] = [],
): (name: string) => string | undefined {
  const options: StringOptions = {
    ...Object.fromEntries(names.map((n) => [n, { type: "string" as const }])),
    ...Object.fromEntries(booleans.map((n) => [n, { type: "boolean" as const }])),
  } as StringOptions;
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values;
  } catch (err) {
    fail((err as Error).message);
  }
  return (name) => {
    const v = values[name];
    return typeof v === "string" ? v : v === true ? "true" : undefined;
  };
}

export function parseServerUrl(value: string | undefined, flag = "--server"): URL {
  if (!value) fail(`${flag} is required (the agent endpoint, e.g. https://127.0.0.1:8443)`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    fail(`${flag} "${value}" is not a URL`);
  }
  if (url.protocol !== "https:") fail(`${flag} must be an https:// URL (the agent protocol only runs over TLS)`);
  if (url.username || url.password) fail(`${flag} must not contain credentials`);
  if (url.search || url.hash) fail(`${flag} must not have a query or fragment`);
  return url;
}

export function parseLabels(value: string | undefined): Record<string, string> {
  const labels: Record<string, string> = {};
  if (!value) return labels;
  for (const part of value.split(",")) {
    const item = part.trim();
    if (!item) continue;
    const eq = item.indexOf("=");
    if (eq <= 0) fail(`--labels: "${item}" is not key=value`);
    const key = item.slice(0, eq).trim();
    const val = item.slice(eq + 1).trim();
    const keyProblem = labelKeyProblem(key);
    if (keyProblem) fail(`--labels: key "${key}": ${keyProblem}`);
    const valueProblem = labelValueProblem(val);
    if (valueProblem) fail(`--labels: value of "${key}": ${valueProblem}`);
    if (key in labels) fail(`--labels: "${key}" is given twice`);
    labels[key] = val;
  }
  return labels;
}

export function parseFingerprint(value: string): string {
  return normalizeFingerprint(value) ?? fail(`--ca-fingerprint must be sha256: followed by 64 hex digits (got "${value}")`);
}

export function positiveNumber(
  value: string | undefined,
  flag: string,
  { integer = false, max = Infinity } = {},
): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n)) || n > max) {
    fail(`${flag} must be a positive ${integer ? "integer" : "number"}${max < Infinity ? ` up to ${max}` : ""} (got "${value}")`);
  }
  return n;
}

function semver(value: string, flag: string, allowV = false): string {
  const v = allowV ? value.replace(/^v/, "") : value;
  if (!isSemver(v)) fail(`${flag} must be a semantic version like 1.4.0 (got "${value}")`);
  return v;
}

function logLevel(value: string | undefined, fallback: LogLevel): LogLevel {
  if (value === undefined) return fallback;
  if (!isLogLevel(value)) fail(`--log-level must be debug, info, warn or error (got "${value}")`);
  return value;
}

function logFormat(value: string | undefined): LogFormat {
  if (value === undefined) return "text";
  if (!isLogFormat(value)) fail(`--log-format must be text or json (got "${value}")`);
  return value;
}

function namespaceList(value: string | undefined, flag: string): string[] {
  const items = (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (const item of items)
    // A namespace, or a prefix: a namespace name followed by "-".
    if (!DNS_LABEL.test(item.replace(/-$/, "")))
      fail(`${flag}: "${item}" is not a namespace name or a prefix ending in "-" (e.g. openshift-)`);
  return items;
}

const NS_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?\/[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

function nsName(value: string | undefined, flag: string): string | undefined {
  if (value !== undefined && !NS_NAME.test(value))
    fail(`${flag} must be namespace/name, e.g. fleet-system/fleet-agent (got "${value}")`);
  return value;
}

/**
 * `env` is the process environment (KUBECONFIG, KUBERNETES_SERVICE_HOST), passed in so the
 * default facts source is testable.
 */
export function parseAgentArgs(argv: string[], env: Record<string, string | undefined> = {}): AgentArgs {
  const str = parse(
    argv,
    [
      "server",
      "token-file",
      "token-secret",
      "state-secret",
      "kubeconfig",
      "facts",
      "deployment",
      "system-namespaces",
      "drain-timeout",
      "health-port",
      "name",
      "labels",
      "state-dir",
      "ca-file",
      "ca-fingerprint",
      "cluster-ca-file",
      "api-server-url",
      "agent-version",
      "kubernetes-version",
      "cluster-uid",
      "heartbeat-interval",
      "timeout",
      "lease-duration",
      "log-level",
      "log-format",
      "proxy-ca-file",
    ],
    ["allow-node-actions", "metrics"],
  );
  const server = parseServerUrl(str("server"));
  const name = str("name") ?? fail("--name is required (the cluster's name, a DNS-1123 label)");
  if (!DNS_LABEL.test(name))
    fail(
      `--name "${name}" must be a DNS-1123 label: 1-63 lowercase letters, digits or '-', starting and ending with a letter or digit`,
    );
  const stateDir = str("state-dir");
  const stateSecret = nsName(str("state-secret"), "--state-secret");
  if (!stateDir && !stateSecret)
    fail("--state-dir or --state-secret is required (where the agent keeps its key and certificate)");
  if (stateDir && stateSecret) fail("give either --state-dir or --state-secret, not both");
  if (str("token-file") && str("token-secret")) fail("give either --token-file or --token-secret, not both");
  const kubeconfig = str("kubeconfig") ?? (env.KUBECONFIG || undefined);
  const factsFlag = str("facts");
  if (factsFlag !== undefined && factsFlag !== "kubernetes" && factsFlag !== "simulated")
    fail(`--facts must be kubernetes or simulated (got "${factsFlag}")`);
  const facts: FactsSource = factsFlag ?? (kubeconfig || env.KUBERNETES_SERVICE_HOST ? "kubernetes" : "simulated");
  if (facts === "simulated" && (stateSecret || str("token-secret")))
    fail("--state-secret and --token-secret need the cluster's API: drop --facts simulated");
  // Made-up versions belong to simulated clusters: a real cluster's agent reports its own build
  // and the API server's /version.
  for (const flag of ["agent-version", "kubernetes-version", "cluster-uid"])
    if (facts === "kubernetes" && str(flag) !== undefined)
      fail(`--${flag} is for simulated facts only: with a real cluster the agent reports what it reads`);
  if (str("metrics") && !str("health-port")) fail("--metrics is served on the health port: give --health-port too");
  if (str("ca-file") && str("ca-fingerprint")) fail("give either --ca-file or --ca-fingerprint, not both");
  const clusterUid = str("cluster-uid")?.toLowerCase();
  if (clusterUid !== undefined && !CLUSTER_UID.test(clusterUid))
    fail(`--cluster-uid "${clusterUid}" must be a Kubernetes UID (lowercase letters, digits and '-', at most 64)`);
  const apiServerUrl = str("api-server-url") ?? DEFAULTS.apiServerUrl;
  try {
    if (new URL(apiServerUrl).protocol !== "https:") fail("--api-server-url must be an https:// URL");
  } catch (err) {
    if (err instanceof UsageError) throw err;
    fail(`--api-server-url "${apiServerUrl}" is not a URL`);
  }
  return {
    server,
    tokenFile: str("token-file"),
    tokenSecret: nsName(str("token-secret"), "--token-secret"),
    name,
    labels: parseLabels(str("labels")),
    stateDir,
    stateSecret,
    facts,
    kubeconfig: facts === "kubernetes" ? kubeconfig : undefined,
    deployment: nsName(str("deployment"), "--deployment"),
    allowNodeActions: str("allow-node-actions") === "true",
    systemNamespaces: namespaceList(str("system-namespaces"), "--system-namespaces"),
    drainTimeoutSeconds:
      positiveNumber(str("drain-timeout"), "--drain-timeout", { integer: true, max: 7 * 86_400 }) ?? DEFAULTS.drainTimeoutSeconds,
    apiServerUrlGiven: str("api-server-url") !== undefined,
    healthPort: positiveNumber(str("health-port"), "--health-port", { integer: true, max: 65_535 }),
    caFile: str("ca-file"),
    caFingerprint: str("ca-fingerprint") !== undefined ? parseFingerprint(str("ca-fingerprint")!) : undefined,
    clusterCaFile: str("cluster-ca-file"),
    apiServerUrl,
    agentVersion: semver(str("agent-version") ?? AGENT_VERSION, "--agent-version"),
    kubernetesVersion: semver(str("kubernetes-version") ?? DEFAULTS.kubernetesVersion, "--kubernetes-version", true),
    clusterUid,
    heartbeatIntervalSeconds: positiveNumber(str("heartbeat-interval"), "--heartbeat-interval", { max: 86_400 }),
    timeoutSeconds: positiveNumber(str("timeout"), "--timeout", { max: 600 }) ?? DEFAULTS.timeoutSeconds,
    leaseDurationSeconds:
      positiveNumber(str("lease-duration"), "--lease-duration", { integer: true, max: 3_600 }) ?? DEFAULTS.leaseDurationSeconds,
    logLevel: logLevel(str("log-level"), "info"),
    logFormat: logFormat(str("log-format")),
    metrics: str("metrics") === "true",
    proxyCaFile: str("proxy-ca-file"),
  };
}
