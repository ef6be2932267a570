// How to run the reference agent for one cluster, as text to copy: the command line for a shell
// and a Kubernetes manifest. Pure (no DOM, no server): the console builds both in the browser
// right after minting, so the token never goes back to the server or into storage.
import type { Labels } from "./labels";
import type { AllowedLabels } from "./tokens";

export const AGENT_NAMESPACE = "fleet-system";
/** Where the manifest mounts the token Secret; the file inside is `token`. */
export const TOKEN_MOUNT_DIR = "/var/run/fleet-agent/token";
export const STATE_MOUNT_DIR = "/var/lib/fleet-agent";
/**
 * A directory inside the volume rather than the mount point itself: the agent makes its state dir
 * 0700, and only the directory's owner may chmod it — the volume root belongs to root.
 */
export const STATE_DIR = `${STATE_MOUNT_DIR}/state`;
/** The nonroot user of distroless-style images; any fixed non-zero id works. */
export const AGENT_UID = 65532;

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
};

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
 * args, so the two cannot disagree). `tokenFile` and `stateDir` differ between the two.
 */
export function agentArgs(install: AgentInstall, paths: { tokenFile: string; stateDir: string }): string[] {
  const args = ["--server", install.agentUrl, "--token-file", paths.tokenFile, "--name", install.clusterName];
  const labels = formatLabelsFlag(install.labels);
  if (labels) args.push("--labels", labels);
  args.push("--state-dir", paths.stateDir, "--ca-fingerprint", install.caFingerprint);
  return args;
}

/** A ready-to-run command for a machine with this repository checked out; reads the token from token.txt. */
export function agentCommand(install: AgentInstall): string {
  const args = agentArgs(install, { tokenFile: "token.txt", stateDir: "./agent-state" });
  return ["npm", "run", "agent", "--", ...args].map(shellQuote).join(" ");
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

// ---------------------------------------------------------------------------------------------
// Kubernetes manifest

type Yaml = string | number | boolean | null | Yaml[] | { [key: string]: Yaml };

const RESERVED = /^(true|false|yes|no|on|off|y|n|null|~)$/i;
const PLAIN = /^[A-Za-z_/][A-Za-z0-9_./-]*$/;

/** A string as a YAML scalar: plain when unambiguous, else double-quoted (JSON strings are valid YAML). */
function scalar(value: string): string {
  return PLAIN.test(value) && !RESERVED.test(value) ? value : JSON.stringify(value);
}

function isBlock(value: Yaml): value is Yaml[] | { [key: string]: Yaml } {
  return typeof value === "object" && value !== null && (Array.isArray(value) ? value.length > 0 : Object.keys(value).length > 0);
}

function inline(value: Yaml): string {
  if (value === null) return "null";
  if (typeof value === "string") return scalar(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return Array.isArray(value) ? "[]" : "{}";
}

/** Block-style YAML with two-space indents, sequences indented under their key (kubectl's style). */
export function toYaml(value: Yaml, indent = ""): string {
  if (!isBlock(value)) return `${indent}${inline(value)}\n`;
  let out = "";
  if (Array.isArray(value)) {
    for (const item of value) {
      if (isBlock(item) && !Array.isArray(item)) {
        // "- key: v" then the item's other keys aligned under the first.
        const body = toYaml(item, `${indent}  `);
        out += `${indent}- ${body.slice(indent.length + 2)}`;
      } else if (isBlock(item)) {
        out += `${indent}-\n${toYaml(item, `${indent}  `)}`;
      } else out += `${indent}- ${inline(item)}\n`;
    }
    return out;
  }
  for (const [key, item] of Object.entries(value)) {
    if (isBlock(item)) out += `${indent}${scalar(key)}:\n${toYaml(item, `${indent}  `)}`;
    else out += `${indent}${scalar(key)}: ${inline(item)}\n`;
  }
  return out;
}

/**
 * The manifest's objects: Namespace, ServiceAccount, Secret (the token), PersistentVolumeClaim
 * (the agent's state) and a one-replica Deployment of the agent.
 *
 * State on a PVC, not an emptyDir: the state dir holds the agent's private key, certificate and
 * cluster id. With an emptyDir a rescheduled pod would lose them and have to register again, which
 * a single-use token (by then used up or deleted) cannot do: the cluster would be locked out. The
 * claim is tiny (a few KiB of PEM) and ReadWriteOnce, hence `Recreate`: two pods never share it.
 */
export function agentManifestObjects(install: AgentInstall & { token: string }): Record<string, Yaml>[] {
  const labels = {
    "app.kubernetes.io/name": "fleet-agent",
    "app.kubernetes.io/instance": install.clusterName,
    "app.kubernetes.io/part-of": "fleet-registry",
  };
  const selector = { "app.kubernetes.io/name": "fleet-agent" };
  const metadata = (name: string) => ({ name, namespace: AGENT_NAMESPACE, labels });
  return [
    { apiVersion: "v1", kind: "Namespace", metadata: { name: AGENT_NAMESPACE, labels } },
    // Its own account, so the agent gets this cluster's CA (its identity) without any RBAC grants.
    { apiVersion: "v1", kind: "ServiceAccount", metadata: metadata("fleet-agent") },
    {
      apiVersion: "v1",
      kind: "Secret",
      metadata: metadata("fleet-agent-token"),
      type: "Opaque",
      stringData: { token: install.token },
    },
    {
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: metadata("fleet-agent-state"),
      spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "16Mi" } } },
    },
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: metadata("fleet-agent"),
      spec: {
        replicas: 1,
        strategy: { type: "Recreate" },
        selector: { matchLabels: selector },
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: "fleet-agent",
            securityContext: {
              runAsNonRoot: true,
              runAsUser: AGENT_UID,
              runAsGroup: AGENT_UID,
              // Makes the state volume writable by the agent's group.
              fsGroup: AGENT_UID,
              seccompProfile: { type: "RuntimeDefault" },
            },
            containers: [
              {
                name: "agent",
                image: install.agentImage,
                args: agentArgs(install, { tokenFile: `${TOKEN_MOUNT_DIR}/token`, stateDir: STATE_DIR }),
                resources: {
                  requests: { cpu: "10m", memory: "64Mi" },
                  limits: { cpu: "200m", memory: "256Mi" },
                },
                securityContext: {
                  allowPrivilegeEscalation: false,
                  readOnlyRootFilesystem: true,
                  capabilities: { drop: ["ALL"] },
                },
                volumeMounts: [
                  { name: "token", mountPath: TOKEN_MOUNT_DIR, readOnly: true },
                  { name: "state", mountPath: STATE_MOUNT_DIR },
                  { name: "tmp", mountPath: "/tmp" },
                ],
              },
            ],
            volumes: [
              // optional: once registered the agent needs no token, so deleting the Secret (as the
              // header says) must not stop the pod from starting again. 0440: readable by the
              // agent through fsGroup, by nobody else.
              { name: "token", secret: { secretName: "fleet-agent-token", defaultMode: 0o440, optional: true } },
              { name: "state", persistentVolumeClaim: { claimName: "fleet-agent-state" } },
              { name: "tmp", emptyDir: { sizeLimit: "16Mi" } },
            ],
          },
        },
      },
    },
  ];
}

/** The manifest as one multi-document YAML file, with a header saying how to apply and clean up. */
export function agentManifest(install: AgentInstall & { token: string }): string {
  const header = [
    `# Fleet Registry agent for cluster "${install.clusterName}".`,
    `# Apply with: kubectl apply -f ${manifestFileName(install.clusterName)}`,
    "#",
    "# The Secret holds a registration token: keep this file private. Once the cluster shows up in",
    "# the console, the token is spent; delete it with",
    `#   kubectl -n ${AGENT_NAMESPACE} delete secret fleet-agent-token`,
    "# (the agent cannot delete a mounted Secret itself and logs TOKEN_FILE_NOT_DELETED; harmless).",
    "# The agent's key and certificate live on the fleet-agent-state claim, so restarts and",
    "# reschedules keep the cluster's identity without a new token.",
  ].join("\n");
  return `${header}\n${agentManifestObjects(install)
    .map((doc) => `---\n${toYaml(doc)}`)
    .join("")}`;
}

/** The download's file name: fleet-agent-<cluster name>.yaml. */
export function manifestFileName(clusterName: string): string {
  return `fleet-agent-${clusterName || "cluster"}.yaml`;
}
