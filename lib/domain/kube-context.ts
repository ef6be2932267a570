// A way into a cluster from a terminal: the kubectl context an engineer's kubeconfig names it by,
// from one template an admin sets (Settings, like the link out: {name}, {id}, {label:<key>}), and
// the commands that look at the agent in its namespace. Pure: the settings validation, the
// cluster page and their tests use the same functions.

import { AGENT_OBJECT_NAMES, AGENT_POD_SELECTOR } from "./agent-kube-calls";
import { parseClusterTemplate } from "./cluster-link";

/** Context names are kubeconfig map keys; this is plenty for `arn:aws:eks:...:cluster/<name>`. */
export const MAX_KUBE_CONTEXT_TEMPLATE = 253;

// Characters a POSIX shell takes literally (no quoting needed when the command is pasted).
// Label values ([A-Za-z0-9._-]), names (DNS labels) and ids are all within it.
const CONTEXT_TEXT = /^[A-Za-z0-9_@%+=:,./-]*$/;

/** Why a context template cannot be saved, or null. */
export function kubeContextTemplateProblem(template: string): string | null {
  if (!template) return "The template is empty; give one such as {name} or gke_my-project_europe-west1_{name}.";
  if (template.length > MAX_KUBE_CONTEXT_TEMPLATE) return `The template is at most ${MAX_KUBE_CONTEXT_TEMPLATE} characters.`;
  const parts = parseClusterTemplate(template);
  if (!Array.isArray(parts)) return parts.message;
  const bad = parts.find((p) => p.kind === "text" && !CONTEXT_TEXT.test(p.text));
  if (bad)
    return "Outside placeholders a context name may hold only letters, digits and _ @ % + = : , . / - (no spaces or quotes), so the commands paste as they are.";
  return null;
}

export type KubeContext = { context: string } | { context: null; missingLabels: string[] };

/**
 * The template filled in for one cluster; null when no template is set (commands then run in the
 * current context). A cluster without a label the template names gets no context, and the keys it lacks.
 */
export function expandKubeContext(
  template: string | null,
  cluster: { id: string; name: string; labels: Record<string, string> },
): KubeContext | null {
  if (!template || kubeContextTemplateProblem(template)) return null;
  const parts = parseClusterTemplate(template);
  if (!Array.isArray(parts)) return null;
  const missingLabels = parts.flatMap((p) => (p.kind === "label" && !Object.hasOwn(cluster.labels, p.key) ? [p.key] : []));
  if (missingLabels.length) return { context: null, missingLabels: [...new Set(missingLabels)] };
  const context = parts
    .map((p) =>
      p.kind === "text" ? p.text : p.kind === "name" ? cluster.name : p.kind === "id" ? cluster.id : cluster.labels[p.key]!,
    )
    .join("");
  // A label value outside the shell-safe set (labels allow none today) gives no context rather than a broken command.
  return CONTEXT_TEXT.test(context) && context ? { context } : null;
}

const NS = AGENT_OBJECT_NAMES.namespace;
/** The agent pod's label selector as `kubectl -l` takes it. */
export const AGENT_POD_LABEL_SELECTOR = Object.entries(AGENT_POD_SELECTOR)
  .map(([k, v]) => `${k}=${v}`)
  .join(",");

/** `kubectl` with `--context <name>` when the cluster has one, else the current context. */
export function kubectl(context: string | null): string {
  return context ? `kubectl --context ${context}` : "kubectl";
}

export type KubectlCommand = { id: "pods" | "logs" | "describe" | "lease" | "secrets" | "events"; what: string; command: string };

/**
 * What to run to look at the agent in its namespace, in the order an engineer would. Read-only,
 * and nothing prints a Secret's data: `get secrets` lists names, types and key counts.
 */
export function agentKubectlCommands(context: string | null): KubectlCommand[] {
  const k = `${kubectl(context)} -n ${NS}`;
  return [
    { id: "pods", what: "the agent's pod", command: `${k} get pods -l ${AGENT_POD_LABEL_SELECTOR}` },
    { id: "logs", what: "the agent's log", command: `${k} logs deploy/${AGENT_OBJECT_NAMES.deployment} --tail=200` },
    { id: "describe", what: "the agent's Deployment", command: `${k} describe deploy/${AGENT_OBJECT_NAMES.deployment}` },
    {
      id: "lease",
      what: "the agent's Lease (who holds it, when renewed)",
      command: `${k} get lease ${AGENT_OBJECT_NAMES.lease} -o wide`,
    },
    {
      id: "secrets",
      what: "the agent's Secrets (names only)",
      command: `${k} get secrets ${AGENT_OBJECT_NAMES.stateSecret} ${AGENT_OBJECT_NAMES.tokenSecret} --ignore-not-found`,
    },
    { id: "events", what: "recent events in the namespace", command: `${k} get events --sort-by=.lastTimestamp` },
  ];
}
