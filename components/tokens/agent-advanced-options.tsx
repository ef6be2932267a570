"use client";

import type { AgentPodOptions, AgentPodOptionsInput } from "@/lib/domain/agent-pod-options";
import { inputClass } from "@/components/ui/field";
import { FieldError } from "@/components/ui/field-error";

export const AGENT_OPTION_FIELDS: { key: keyof AgentPodOptionsInput; label: string; placeholder: string; hint: string }[] = [
  {
    key: "apiServerUrl",
    label: "API server URL",
    placeholder: "https://ABC123.gr7.eu-west-1.eks.amazonaws.com",
    hint: "The address the fleet records for this cluster. EKS, GKE and AKS publish none inside the cluster, so without it the registry shows the in-cluster Service address.",
  },
  {
    key: "priorityClassName",
    label: "Priority class",
    placeholder: "system-cluster-critical",
    hint: "Keeps the agent scheduled when nodes are full.",
  },
  {
    key: "imagePullSecrets",
    label: "Image pull secrets",
    placeholder: "regcred",
    hint: "Secret names in the fleet-system namespace, comma-separated, for a private registry.",
  },
  {
    key: "tolerations",
    label: "Tolerations",
    placeholder: "dedicated=platform:NoSchedule",
    hint: "As kubectl taint writes taints, comma-separated: key=value:Effect, key:Effect or key.",
  },
];

type Props = {
  value: AgentPodOptionsInput;
  problems: Partial<Record<keyof AgentPodOptions, string>>;
  onChange: (value: AgentPodOptionsInput) => void;
};

/** One pod option as a labelled input with its hint and its problem. */
export function AgentOptionField({ field, value, problems, onChange }: Props & { field: keyof AgentPodOptionsInput }) {
  const f = AGENT_OPTION_FIELDS.find((x) => x.key === field)!;
  const id = `agent-option-${f.key}`;
  const problem = problems[f.key];
  return (
    <div className="space-y-1.5">
      <label htmlFor={id} className="block text-sm font-medium">
        {f.label}
      </label>
      <input
        id={id}
        className={`${inputClass} font-mono`}
        placeholder={f.placeholder}
        value={value[f.key]}
        aria-invalid={problem ? true : undefined}
        aria-describedby={`${id}-hint${problem ? ` ${id}-error` : ""}`}
        onChange={(e) => onChange({ ...value, [f.key]: e.target.value })}
      />
      <p id={`${id}-hint`} className="text-xs text-slate-500 dark:text-slate-400">
        {f.hint}
      </p>
      <FieldError id={`${id}-error`} message={problem} />
    </div>
  );
}

/**
 * The manifest's optional pod settings, collapsed by default: most clusters need none. Each field
 * shows its problem inline; a field with a problem is left out of the manifest until fixed.
 * `omit`: fields the page shows elsewhere (the API server URL sits with the connection options).
 */
export function AgentAdvancedOptions({ omit = [], ...props }: Props & { omit?: (keyof AgentPodOptionsInput)[] }) {
  return (
    <details className="rounded-md border border-slate-200 dark:border-slate-800">
      <summary className="cursor-pointer px-3 py-2 text-sm font-medium">Advanced options</summary>
      <div className="grid gap-4 border-t border-slate-200 p-3 sm:grid-cols-2 dark:border-slate-800">
        {AGENT_OPTION_FIELDS.filter((f) => !omit.includes(f.key)).map((f) => (
          <AgentOptionField key={f.key} field={f.key} {...props} />
        ))}
      </div>
    </details>
  );
}
