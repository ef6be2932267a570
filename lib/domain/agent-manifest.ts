// How to run the reference agent for one cluster, as text to copy: the command line for a shell
// and a Kubernetes manifest. Pure (no DOM, no server): the console builds both in the browser
// right after minting, so the token never goes back to the server or into storage.
import YAML from "yaml";
import {
  AGENT_OBJECT_NAMES,
  AGENT_POD_SELECTOR,
  AGENT_REMOVE_COMMAND,
  CLUSTER_INFO_NAME,
  KUBE_CALLS,
  KUBE_SYSTEM_NAMESPACE,
  METRICS_API_SERVICE_NAME,
  type KubeCall,
  type KubeObjectRole,
} from "./agent-kube-calls";
import { podOptionProblems, type AgentPodOptions } from "./agent-pod-options";
import type { Labels } from "./labels";
import type { AllowedLabels } from "./tokens";

export const AGENT_NAMESPACE = AGENT_OBJECT_NAMES.namespace;

export type AgentInstall = {
  /** The fleet's agent endpoint (GET /api/v1/fleet agentUrl). */
  agentUrl: string;
  /** sha256:<hex> of the fleet CA, so the agent trusts exactly this fleet on first contact. */
  caFingerprint: string;
  agentImage: string;
  /** The cluster's name, a DNS-1123 label. */
  clusterName: string;
  /** Labels the agent asks for; the token's fixed labels are stamped on by the server. */
  labels: Labels;
  /** Reported as the cluster's API server instead of the one the agent finds (--api-server-url). */
  apiServerUrl?: string;
};

/**
 * The image of an agent version: the configured image (AGENT_IMAGE) with its tag replaced by the
 * version, e.g. registry.example.com/fleet/agent:1.4.0 -> ...:1.5.0. A digest-pinned image keeps
 * its repository and gets the tag instead of the digest.
 */
export function agentImageFor(image: string, version: string): string {
  const repo = image.replace(/@sha256:[0-9a-f]+$/, "");
  const slash = repo.lastIndexOf("/");
  const colon = repo.lastIndexOf(":");
  return `${colon > slash ? repo.slice(0, colon) : repo}:${version}`;
}

// ---------------------------------------------------------------------------------------------
// Command line

const SHELL_SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** POSIX shell quoting: bare when nothing in it is special, else single quotes. */
export function shellQuote(value: string): string {
  if (SHELL_SAFE.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** `k=v,k2=v2` as --labels takes it; keys sorted so the text is stable while the user types. */
export function formatLabelsFlag(labels: Labels): string {
  return Object.keys(labels)
    .sort()
    .map((key) => `${key}=${labels[key]}`)
    .join(",");
}

/**
 * The agent CLI's flags for this install (the same list for the shell and for the manifest's
 * args, so the two cannot disagree). Where the token and the state are kept differs.
 */
export function agentArgs(
  install: AgentInstall,
  where: { tokenFile: string; stateDir: string } | { tokenSecret: string; stateSecret: string },
): string[] {
  const token = "tokenFile" in where ? ["--token-file", where.tokenFile] : ["--token-secret", where.tokenSecret];
  const args = ["--server", install.agentUrl, ...token, "--name", install.clusterName];
  const labels = formatLabelsFlag(install.labels);
  if (labels) args.push("--labels", labels);
  args.push(...("stateDir" in where ? ["--state-dir", where.stateDir] : ["--state-secret", where.stateSecret]));
  args.push("--ca-fingerprint", install.caFingerprint);
  if (install.apiServerUrl) args.push("--api-server-url", install.apiServerUrl);
  return args;
}

/** A ready-to-run command for a machine with this repository checked out; reads the token from token.txt. */
export function agentCommand(install: AgentInstall): string {
  const args = agentArgs(install, { tokenFile: "token.txt", stateDir: "./agent-state" });
  // The kubeconfig path stays bare so the shell expands ~.
  return `${["npm", "run", "agent", "--", ...args].map(shellQuote).join(" ")} --kubeconfig ~/.kube/config`;
}

// ---------------------------------------------------------------------------------------------
// Labels to suggest

export type SuggestedLabel = {
  key: string;
  value: string;
  /** Values the token's scope allows for it; null: any. */ choices: string[] | null;
};

/**
 * The labels an agent has to send for this token: the fleet's required labels the token does not
 * fix, pre-filled with the scope's first allowed value when the scope names values.
 */
export function labelsToSend(input: {
  requiredLabels: readonly string[];
  fixedLabels: Labels;
  allowedLabels: AllowedLabels | null;
}): SuggestedLabel[] {
  // Own properties only: a required label may be called "constructor".
  return input.requiredLabels
    .filter((key) => !Object.hasOwn(input.fixedLabels, key))
    .map((key) => {
      const scope = !input.allowedLabels ? "*" : Object.hasOwn(input.allowedLabels, key) ? input.allowedLabels[key] : undefined;
      const choices = scope === "*" ? null : (scope ?? []);
      return { key, value: choices?.[0] ?? "", choices };
    });
}

/**
 * Required labels a cluster can never get with this token: not fixed by it and outside its label
 * scope, so every registration would be refused (label_not_allowed / missing_required_labels).
 */
export function unreachableRequiredLabels(input: {
  requiredLabels: readonly string[];
  fixedLabels: Labels;
  allowedLabels: AllowedLabels | null;
}): string[] {
  if (!input.allowedLabels) return [];
  const scope = input.allowedLabels;
  return input.requiredLabels.filter((key) => !Object.hasOwn(input.fixedLabels, key) && !Object.hasOwn(scope, key));
}

/** True when the agent URL names this machine: fine for a laptop, useless from inside a cluster. */
export function isLoopbackUrl(url: string): boolean {
  try {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
    return host === "localhost" || host === "::1" || /^127\./.test(host);
  } catch {
    return false;
  }
}

/** The agent URL of one AGENT_HOSTNAMES entry (an IPv6 address in brackets). */
export function agentUrlFor(host: string, port: number): string {
  return `https://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/**
 * The server address a manifest starts from: the first agent URL a pod can reach (not loopback),
 * else `fallback` (the first AGENT_HOSTNAMES entry, which the page then refuses for a manifest).
 */
export function defaultAgentUrl(agentUrls: readonly string[], fallback: string): string {
  return agentUrls.find((u) => !isLoopbackUrl(u)) ?? fallback;
}

/**
 * Why an agent in a pod could not use this server address (null: it can). The agent port speaks
 * TLS only, and a loopback address inside a pod is the pod itself.
 */
export function serverAddressProblem(url: string): string | null {
  const text = url.trim();
  if (!text) return "Enter the address the cluster reaches this server on, e.g. https://fleet.example.com:8443.";
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    return `"${text}" is not a URL; write it as https://host:port.`;
  }
  if (parsed.protocol !== "https:") return "The agent port speaks TLS only: the address starts with https://.";
  if (parsed.username || parsed.password) return "The address carries no user name or password.";
  if ((parsed.pathname !== "/" && parsed.pathname !== "") || parsed.search || parsed.hash)
    return "Only the scheme, host and port: the agent adds the paths itself.";
  if (isLoopbackUrl(text))
    return `${parsed.hostname} is loopback: inside a pod it is the pod itself. Use an address the cluster can reach (set AGENT_HOSTNAMES on the server to offer it here).`;
  return null;
}

/** Why an egress proxy URL (HTTPS_PROXY) is unusable, or null. */
export function proxyUrlProblem(url: string): string | null {
  try {
    const parsed = new URL(url.trim());
    return parsed.protocol === "http:" || parsed.protocol === "https:"
      ? null
      : "The proxy is an http:// or https:// URL, e.g. http://proxy.internal:3128.";
  } catch {
    return `"${url.trim()}" is not a URL; write it as http://proxy.internal:3128.`;
  }
}

/**
 * What keeps a manifest from being handed out, one short reason each, in the page's order: a
 * manifest that downloads in a state that fails is worse than none. Empty: ready.
 */
export function manifestBlockers(input: {
  nameProblem: string | null;
  /** label keys still empty or invalid */
  labelProblems: readonly string[];
  serverProblem: string | null;
  /** option fields whose value is refused (left out of the manifest until fixed) */
  optionProblems: readonly string[];
}): string[] {
  const out: string[] = [];
  if (input.nameProblem) out.push("a valid cluster name");
  if (input.labelProblems.length)
    out.push(`the required label${input.labelProblems.length === 1 ? "" : "s"} ${input.labelProblems.join(", ")}`);
  if (input.serverProblem) out.push("a server address a pod can reach");
  if (input.optionProblems.length) out.push(`a valid ${input.optionProblems.join(", ")}`);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Kubernetes manifest

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export type ManifestObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
} & Record<string, Json>;

/** The port of the agent's health endpoint (/healthz: the process answers; /readyz: registered and heartbeating). */
export const AGENT_HEALTH_PORT = 8080;
export const NODE_ACTIONS_ROLE = AGENT_OBJECT_NAMES.nodeActionsClusterRoleBinding;

type Rule = { apiGroups?: string[]; resources?: string[]; resourceNames?: string[]; nonResourceURLs?: string[]; verbs: string[] };

/** The name RBAC limits a call to, for calls on one object. */
function objectName(role: KubeObjectRole): string {
  switch (role) {
    case "stateSecret":
      return AGENT_OBJECT_NAMES.stateSecret;
    case "tokenSecret":
      return AGENT_OBJECT_NAMES.tokenSecret;
    case "ownDeployment":
      return AGENT_OBJECT_NAMES.deployment;
    case "clusterInfo":
      return CLUSTER_INFO_NAME;
    case "metricsApiService":
      return METRICS_API_SERVICE_NAME;
    case "kubeSystemNamespace":
      return KUBE_SYSTEM_NAMESPACE;
    case "agentLease":
      return AGENT_OBJECT_NAMES.lease;
    case "ownRoleBinding":
      return AGENT_OBJECT_NAMES.roleBinding;
    case "clusterInfoRoleBinding":
      return AGENT_OBJECT_NAMES.clusterInfoRoleBinding;
    case "clusterRoleBinding":
      return AGENT_OBJECT_NAMES.clusterRoleBinding;
    case "nodeActionsClusterRoleBinding":
      return AGENT_OBJECT_NAMES.nodeActionsClusterRoleBinding;
  }
}

/**
 * RBAC rules for the calls of one scope, derived from KUBE_CALLS: one rule per (group, resource,
 * object), verbs merged, in the table's order. Nothing is granted that the agent does not call.
 */
export function rbacRules(scope: "cluster" | "own" | "kube-public", nodeActions: boolean): Rule[] {
  const rules = new Map<string, Rule>();
  for (const call of Object.values(KUBE_CALLS) as KubeCall[]) {
    if (call.kind === "nonResource") {
      if (scope !== "cluster" || nodeActions) continue;
      const rule = rules.get("nonResource") ?? { nonResourceURLs: [], verbs: [call.verb] };
      rule.nonResourceURLs!.push(call.path);
      rules.set("nonResource", rule);
      continue;
    }
    if (call.scope !== scope || !!call.nodeActions !== nodeActions) continue;
    const name = call.object ? objectName(call.object) : undefined;
    const key = `${call.group}|${call.resource}|${name ?? ""}`;
    const rule = rules.get(key) ?? {
      apiGroups: [call.group],
      resources: [call.resource],
      ...(name ? { resourceNames: [name] } : {}),
      verbs: [],
    };
    if (!rule.verbs.includes(call.verb)) rule.verbs.push(call.verb);
    rules.set(key, rule);
  }
  return [...rules.values()];
}

/**
 * The Deployment's annotation holding the install's options (all but the token and the image):
 * an upgrade regenerates the Deployment from them, so a version that needs a new flag gets it.
 */
export const AGENT_INSTALL_ANNOTATION = "fleet-registry.io/install";

/** What the install annotation records: every option but the token (a secret) and the image (the version). */
export type InstallOptions = Omit<ManifestInstall, "token" | "agentImage">;

export function installOptions(install: ManifestInstall): InstallOptions {
  const { token: _token, agentImage: _image, ...options } = install;
  return options;
}

export type ManifestInstall = AgentInstall &
  AgentPodOptions & {
    token: string;
    /** Adds the node-actions ClusterRole and --allow-node-actions (drainNodePool). Off by default. */
    allowNodeActions?: boolean;
    /**
     * More namespaces (or prefixes ending in "-") whose pods are the platform's, so a drain does not
     * wait for them; the agent knows kube-*, OpenShift, GKE, Calico, Rancher and Gatekeeper ones.
     */
    systemNamespaces?: string[];
    /** Egress proxy for the connection to the fleet (HTTPS_PROXY / NO_PROXY in the pod). */
    httpsProxy?: string;
    noProxy?: string;
  } & AgentOpsOptions;

/** What platform teams set around the agent: metrics, log format, the proxy's CA. */
export type AgentOpsOptions = {
  /** Serve Prometheus metrics at /metrics on the health port, with a Service to scrape. */
  metrics?: boolean;
  /** One JSON object per log line instead of text. */
  logFormat?: "json";
  /** PEM bundle an https:// proxy's certificate is checked against (a ConfigMap mounted in the pod). */
  proxyCaPem?: string;
};

export const PROXY_CA_CONFIG_MAP = "fleet-agent-proxy-ca";
export const PROXY_CA_MOUNT = "/etc/fleet-agent/proxy-ca";
export const METRICS_SERVICE = "fleet-agent-metrics";

/** Why a proxy CA bundle is unusable, or null. */
export function proxyCaProblem(pem: string): string | null {
  return /^-----BEGIN CERTIFICATE-----[\s\S]+-----END CERTIFICATE-----$/.test(pem.trim())
    ? null
    : "Paste the proxy's CA certificate(s) in PEM, from -----BEGIN CERTIFICATE----- to -----END CERTIFICATE-----.";
}

/** The agent flags of the ops options, after the others. */
function opsArgs(options: AgentOpsOptions): string[] {
  return [
    ...(options.metrics ? ["--metrics"] : []),
    ...(options.logFormat ? ["--log-format", options.logFormat] : []),
    ...(options.proxyCaPem ? ["--proxy-ca-file", `${PROXY_CA_MOUNT}/ca.crt`] : []),
  ];
}

/** The pod's volume and mount for the proxy CA ConfigMap, when one is given. */
function opsVolumes(options: AgentOpsOptions) {
  if (!options.proxyCaPem) return { volumes: [], mounts: [] };
  return {
    volumes: [{ name: "proxy-ca", configMap: { name: PROXY_CA_CONFIG_MAP } }],
    mounts: [{ name: "proxy-ca", mountPath: PROXY_CA_MOUNT, readOnly: true }],
  };
}

/** The proxy CA ConfigMap (before the Deployment) and the metrics Service (after it), when asked for. */
function opsObjects(
  options: AgentOpsOptions,
  metadata: (name: string) => ManifestObject["metadata"],
): { beforeDeployment: ManifestObject[]; afterDeployment: ManifestObject[] } {
  const caProblem = options.proxyCaPem === undefined ? null : proxyCaProblem(options.proxyCaPem);
  if (caProblem) throw new Error(caProblem);
  return {
    beforeDeployment: options.proxyCaPem
      ? [{ apiVersion: "v1", kind: "ConfigMap", metadata: metadata(PROXY_CA_CONFIG_MAP), data: { "ca.crt": options.proxyCaPem } }]
      : [],
    afterDeployment: options.metrics
      ? [
          {
            apiVersion: "v1",
            kind: "Service",
            metadata: metadata(METRICS_SERVICE),
            spec: {
              selector: { ...AGENT_POD_SELECTOR },
              ports: [{ name: "metrics", port: AGENT_HEALTH_PORT, targetPort: "health", protocol: "TCP" }],
            },
          },
        ]
      : [],
  };
}

/**
 * The manifest's objects: Namespace (Pod Security "restricted" enforced), ServiceAccount, the
 * read-only ClusterRole, a Role on the agent's own objects by name, a Role in kube-public for
 * cluster-info, the optional node-actions ClusterRole, bindings, the token Secret, the empty
 * state Secret (RBAC cannot limit `create` by name, so the agent only updates it) and the
 * Deployment. No Lease: the agent creates its own (GitOps tools commonly leave Leases out).
 *
 * Identity lives in the state Secret, not on a volume: a pod rescheduled to another node keeps
 * the cluster's key, certificate and id; only the holder of the Lease writes it.
 *
 * The pod names no user: the image's numeric USER runs it and `runAsNonRoot` has the kubelet
 * check that, so platforms that assign users themselves (OpenShift's restricted-v2 refuses a
 * pinned runAsUser) admit it unchanged. The image's entrypoint carries the script: `args` are
 * the flags alone.
 */
export function agentManifestObjects(install: ManifestInstall): ManifestObject[] {
  const problem = Object.values(podOptionProblems(install))[0];
  if (problem) throw new Error(problem);
  const names = AGENT_OBJECT_NAMES;
  const ns = names.namespace;
  const labels = {
    "app.kubernetes.io/name": "fleet-agent",
    "app.kubernetes.io/instance": install.clusterName,
    "app.kubernetes.io/part-of": "fleet-registry",
  };
  const selector = { ...AGENT_POD_SELECTOR };
  const metadata = (name: string, namespace: string = ns) => ({ name, namespace, labels });
  const subject = [{ kind: "ServiceAccount", name: names.serviceAccount, namespace: ns }];
  const binding = (
    kind: "ClusterRoleBinding" | "RoleBinding",
    name: string,
    roleKind: "ClusterRole" | "Role",
    namespace?: string,
  ) => ({
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind,
    metadata: namespace ? metadata(name, namespace) : { name, labels },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: roleKind, name },
    subjects: subject,
  });
  const args = [
    ...agentArgs(install, { tokenSecret: `${ns}/${names.tokenSecret}`, stateSecret: `${ns}/${names.stateSecret}` }),
    "--deployment",
    `${ns}/${names.deployment}`,
    "--health-port",
    String(AGENT_HEALTH_PORT),
    ...(install.allowNodeActions ? ["--allow-node-actions"] : []),
    ...(install.systemNamespaces?.length ? ["--system-namespaces", install.systemNamespaces.join(",")] : []),
    ...opsArgs(install),
  ];
  const ops = opsObjects(install, (name) => metadata(name));
  const opsPod = opsVolumes(install);
  const env = [
    ...(install.httpsProxy ? [{ name: "HTTPS_PROXY", value: install.httpsProxy }] : []),
    ...(install.noProxy ? [{ name: "NO_PROXY", value: install.noProxy }] : []),
  ];
  const objects: ManifestObject[] = [
    {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: {
        name: ns,
        labels: {
          ...labels,
          "pod-security.kubernetes.io/enforce": "restricted",
          "pod-security.kubernetes.io/enforce-version": "latest",
        },
      },
    },
    { apiVersion: "v1", kind: "ServiceAccount", metadata: metadata(names.serviceAccount) },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: "fleet-agent", labels },
      rules: rbacRules("cluster", false),
    },
    binding("ClusterRoleBinding", names.clusterRoleBinding, "ClusterRole"),
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: metadata("fleet-agent"),
      rules: rbacRules("own", false),
    },
    binding("RoleBinding", names.roleBinding, "Role", ns),
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: metadata("fleet-agent-cluster-info", "kube-public"),
      rules: rbacRules("kube-public", false),
    },
    binding("RoleBinding", names.clusterInfoRoleBinding, "Role", "kube-public"),
  ];
  if (install.allowNodeActions) {
    objects.push(
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRole",
        metadata: { name: NODE_ACTIONS_ROLE, labels },
        rules: rbacRules("cluster", true),
      },
      binding("ClusterRoleBinding", names.nodeActionsClusterRoleBinding, "ClusterRole"),
    );
  }
  objects.push(
    {
      apiVersion: "v1",
      kind: "Secret",
      metadata: metadata(names.tokenSecret),
      type: "Opaque",
      stringData: { token: install.token },
    },
    { apiVersion: "v1", kind: "Secret", metadata: metadata(names.stateSecret), type: "Opaque" },
    ...ops.beforeDeployment,
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: {
        ...metadata(names.deployment),
        annotations: { [AGENT_INSTALL_ANNOTATION]: JSON.stringify(installOptions(install)) },
      },
      spec: {
        replicas: 1,
        // The old agent runs until the new pod is Ready (as a standby for the Lease), so it can
        // restore its image when an upgrade's pod never gets there.
        strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
        selector: { matchLabels: selector },
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: names.serviceAccount,
            // The image is built for Linux nodes only (Windows nodes would never start it).
            nodeSelector: { "kubernetes.io/os": "linux" },
            ...(install.priorityClassName ? { priorityClassName: install.priorityClassName } : {}),
            ...(install.imagePullSecrets?.length ? { imagePullSecrets: install.imagePullSecrets.map((name) => ({ name })) } : {}),
            ...(install.tolerations?.length ? { tolerations: install.tolerations } : {}),
            securityContext: {
              runAsNonRoot: true,
              seccompProfile: { type: "RuntimeDefault" },
            },
            containers: [
              {
                name: "agent",
                image: install.agentImage,
                args,
                ...(env.length ? { env } : {}),
                ports: [{ name: "health", containerPort: AGENT_HEALTH_PORT, protocol: "TCP" }],
                resources: {
                  requests: { cpu: "20m", memory: "96Mi" },
                  limits: { cpu: "500m", memory: "384Mi" },
                },
                // Liveness asks only whether the process answers: a control-plane outage must not
                // restart every agent in the fleet. Readiness says registered and heartbeating.
                livenessProbe: {
                  httpGet: { path: "/healthz", port: "health" },
                  periodSeconds: 20,
                  timeoutSeconds: 5,
                  failureThreshold: 3,
                },
                readinessProbe: { httpGet: { path: "/readyz", port: "health" }, periodSeconds: 10, timeoutSeconds: 5 },
                securityContext: {
                  allowPrivilegeEscalation: false,
                  readOnlyRootFilesystem: true,
                  runAsNonRoot: true,
                  capabilities: { drop: ["ALL"] },
                  seccompProfile: { type: "RuntimeDefault" },
                },
                volumeMounts: [{ name: "tmp", mountPath: "/tmp" }, ...opsPod.mounts],
              },
            ],
            volumes: [{ name: "tmp", emptyDir: { sizeLimit: "16Mi" } }, ...opsPod.volumes],
          },
        },
      },
    },
    ...ops.afterDeployment,
  );
  return objects;
}

/** The manifest as one multi-document YAML file, with a header saying how to apply and clean up. */
export function agentManifest(install: ManifestInstall): string {
  const header = [
    `# Fleet Registry agent for cluster "${install.clusterName}".`,
    `# Apply with: kubectl apply -f ${manifestFileName(install.clusterName)}`,
    "#",
    "# The fleet-agent-token Secret holds a registration token: keep this file private. The agent",
    "# deletes that Secret through the API once registered, and keeps its key, certificate and",
    "# cluster id in the fleet-agent-state Secret, so restarts and reschedules keep its identity.",
    "# It reads the cluster (nodes, pod counts, namespaces, the kube-system namespace's UID,",
    "# DaemonSets, /version, /readyz) and never changes it, except its own Deployment (upgrades,",
    "# scale to 0 on disconnect), the Lease it creates and, on disconnect, its own role bindings" +
      (install.allowNodeActions
        ? " and, for drainNodePool,\n# the nodes of a pool being retired (cordon, then evictions that honour PodDisruptionBudgets)."
        : ".\n# Node actions (drainNodePool: cordon and evict) are off; a manifest generated with them on\n# adds the fleet-agent-node-actions ClusterRole and --allow-node-actions."),
    "# Remove everything after a disconnect with:",
    `#   ${AGENT_REMOVE_COMMAND}`,
  ].join("\n");
  return `${header}\n${agentManifestObjects(install)
    .map((doc) => `---\n${YAML.stringify(doc, { lineWidth: 0 })}`)
    .join("")}`;
}

/** The download's file name: fleet-agent-<cluster name>.yaml. */
export function manifestFileName(clusterName: string): string {
  return `fleet-agent-${clusterName || "cluster"}.yaml`;
}
