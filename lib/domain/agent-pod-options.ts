// The agent manifest's advanced options as an operator types them on the Tokens page: each field
// parsed into what the manifest needs, or a sentence saying what is wrong with it. Pure, shared
// by the page (inline errors) and the manifest generator (which refuses what this refuses).
import { httpsUrlSchema } from "./agent-protocol";
import { labelKeyProblem, labelValueProblem } from "./labels";

export const TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"] as const;
export type TaintEffect = (typeof TAINT_EFFECTS)[number];

/** A pod toleration as Kubernetes takes it (core/v1 Toleration). */
export type Toleration = { key: string; operator: "Equal" | "Exists"; value?: string; effect?: TaintEffect };

export type AgentPodOptions = {
  /** Reported instead of kube-public/cluster-info's server (EKS, GKE and AKS publish none). */
  apiServerUrl?: string;
  priorityClassName?: string;
  /** Secrets of type kubernetes.io/dockerconfigjson in the agent's namespace. */
  imagePullSecrets?: string[];
  tolerations?: Toleration[];
};

/** The options as text fields. */
export type AgentPodOptionsInput = Record<keyof AgentPodOptions, string>;
export const EMPTY_POD_OPTIONS: AgentPodOptionsInput = {
  apiServerUrl: "",
  priorityClassName: "",
  imagePullSecrets: "",
  tolerations: "",
};

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function subdomainProblem(name: string, what: string): string | null {
  return name.length <= 253 && DNS_SUBDOMAIN.test(name)
    ? null
    : `${what} "${name}" must be a DNS subdomain: lowercase letters, digits, '-' and '.', at most 253 characters.`;
}

function apiServerUrlProblem(url: string): string | null {
  return httpsUrlSchema.safeParse(url).success
    ? null
    : `"${url}" must be an https:// URL without credentials, e.g. https://ABC123.gr7.eu-west-1.eks.amazonaws.com.`;
}

/**
 * Tolerations in the taint syntax of `kubectl taint`, comma-separated: `key=value:Effect` tolerates
 * that taint (Equal), `key:Effect` or `key` any value of the key (Exists); without an effect,
 * every effect.
 */
export function parseTolerations(text: string): { tolerations: Toleration[]; problem: string | null } {
  const tolerations: Toleration[] = [];
  for (const part of text.split(",")) {
    const item = part.trim();
    if (!item) continue;
    const colon = item.lastIndexOf(":");
    const effect = colon >= 0 ? item.slice(colon + 1) : undefined;
    const pair = colon >= 0 ? item.slice(0, colon) : item;
    const eq = pair.indexOf("=");
    const key = eq >= 0 ? pair.slice(0, eq) : pair;
    const value = eq >= 0 ? pair.slice(eq + 1) : undefined;
    const fail = (why: string) => ({ tolerations: [], problem: `Toleration "${item}": ${why}` });
    if (effect !== undefined && !(TAINT_EFFECTS as readonly string[]).includes(effect))
      return fail(`the effect must be ${TAINT_EFFECTS.join(", ")} (after the last ':').`);
    if (!key) return fail("needs a taint key, as in key=value:NoSchedule.");
    const keyProblem = labelKeyProblem(key);
    if (keyProblem) return fail(`key ${keyProblem}.`);
    const valueProblem = value === undefined ? null : labelValueProblem(value);
    if (valueProblem) return fail(`${valueProblem}.`);
    tolerations.push({
      key,
      operator: value === undefined ? "Exists" : "Equal",
      ...(value !== undefined ? { value } : {}),
      ...(effect ? { effect: effect as TaintEffect } : {}),
    });
  }
  return { tolerations, problem: null };
}

/** Typed options -> the first problem of each field (none: valid). */
export function podOptionProblems(options: AgentPodOptions): Partial<Record<keyof AgentPodOptions, string>> {
  const problems: Partial<Record<keyof AgentPodOptions, string>> = {};
  if (options.apiServerUrl !== undefined) {
    const p = apiServerUrlProblem(options.apiServerUrl);
    if (p) problems.apiServerUrl = p;
  }
  if (options.priorityClassName !== undefined) {
    const p = subdomainProblem(options.priorityClassName, "Priority class");
    if (p) problems.priorityClassName = p;
  }
  const secret = options.imagePullSecrets?.map((s) => subdomainProblem(s, "Secret name")).find(Boolean);
  if (secret) problems.imagePullSecrets = secret;
  for (const t of options.tolerations ?? []) {
    const text = `${t.key}${t.value !== undefined ? `=${t.value}` : ""}${t.effect ? `:${t.effect}` : ""}`;
    const p = parseTolerations(text).problem;
    if (p || (t.operator === "Exists") !== (t.value === undefined)) {
      problems.tolerations = p ?? `Toleration "${text}": Exists takes no value, Equal needs one.`;
      break;
    }
  }
  return problems;
}

/** The text fields -> options (empty fields left out) and each field's problem. */
export function parseAgentPodOptions(input: AgentPodOptionsInput): {
  options: AgentPodOptions;
  problems: Partial<Record<keyof AgentPodOptions, string>>;
} {
  const options: AgentPodOptions = {};
  const apiServerUrl = input.apiServerUrl.trim();
  if (apiServerUrl) options.apiServerUrl = apiServerUrl;
  const priorityClassName = input.priorityClassName.trim();
  if (priorityClassName) options.priorityClassName = priorityClassName;
  const secrets = input.imagePullSecrets
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
  if (secrets.length) options.imagePullSecrets = [...new Set(secrets)];
  const tolerations = parseTolerations(input.tolerations);
  if (tolerations.tolerations.length) options.tolerations = tolerations.tolerations;
  const problems = podOptionProblems(options);
  if (tolerations.problem) problems.tolerations = tolerations.problem;
  return { options, problems };
}
