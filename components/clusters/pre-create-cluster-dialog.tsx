"use client";

import { useState, type FormEvent } from "react";
import { DNS_LABEL } from "@/lib/domain/labels";
import { labelValueProblem } from "@/lib/domain/labels";
import { usePreCreateCluster, type PreCreated } from "@/lib/client/clusters";
import { Dialog } from "@/components/ui/dialog";
import { FormActions } from "@/components/ui/form-actions";
import { inputClass } from "@/components/ui/field";
import { FieldError } from "@/components/ui/field-error";

/**
 * Pre-creates a cluster with the fleet's required labels (more can be added on its page). The
 * answer carries the token bound to it, which `onCreated` shows once: only that token claims it.
 */
export function PreCreateClusterDialog({
  requiredLabels,
  onClose,
  onCreated,
}: {
  requiredLabels: readonly string[];
  onClose: () => void;
  onCreated: (created: PreCreated) => void;
}) {
  const create = usePreCreateCluster();
  const [name, setName] = useState("");
  const [values, setValues] = useState<Record<string, string>>({});
  const [touched, setTouched] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const valueOf = (key: string) => (Object.hasOwn(values, key) ? values[key]!.trim() : "");

  const nameProblem = DNS_LABEL.test(name.trim())
    ? null
    : "Lowercase letters, digits and '-', starting and ending with a letter or digit (at most 63).";
  const labelProblems = new Map(
    requiredLabels.map((key) => {
      const value = valueOf(key);
      return [key, value === "" ? `Every cluster needs a ${key} label.` : labelValueProblem(value)] as const;
    }),
  );
  const invalid = !!nameProblem || [...labelProblems.values()].some(Boolean);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setTouched(true);
    if (invalid) return;
    setError(null);
    try {
      const labels = Object.fromEntries(requiredLabels.map((key) => [key, valueOf(key)]));
      onCreated(await create.mutateAsync({ name: name.trim(), labels }));
    } catch (err) {
      setError(err);
    }
  }

  return (
    <Dialog
      title="Pre-create a cluster"
      onClose={onClose}
      description="Reserve the cluster's name and labels before its agent runs. Only the token minted with it claims it; it is shown once, with the agent command."
    >
      <form onSubmit={submit} noValidate className="space-y-4" aria-label="Pre-create a cluster">
        <div className="space-y-1.5">
          <label htmlFor="pre-create-name" className="block text-sm font-medium">
            Cluster name
          </label>
          <input
            id="pre-create-name"
            className={`${inputClass} font-mono`}
            value={name}
            maxLength={63}
            autoFocus
            aria-invalid={touched && nameProblem ? true : undefined}
            aria-describedby={touched && nameProblem ? "pre-create-name-error" : undefined}
            onChange={(e) => setName(e.target.value)}
          />
          <FieldError id="pre-create-name-error" message={touched ? nameProblem : null} />
        </div>
        {requiredLabels.map((key) => {
          const id = `pre-create-label-${key.replace(/[^A-Za-z0-9_-]/g, "-")}`;
          const problem = touched ? labelProblems.get(key) : null;
          return (
            <div key={key} className="space-y-1.5">
              <label htmlFor={id} className="block text-sm font-medium">
                Label <span className="font-mono">{key}</span>
              </label>
              <input
                id={id}
                className={`${inputClass} font-mono`}
                value={Object.hasOwn(values, key) ? values[key] : ""}
                aria-invalid={problem ? true : undefined}
                aria-describedby={problem ? `${id}-error` : undefined}
                onChange={(e) => setValues((v) => ({ ...v, [key]: e.target.value }))}
              />
              <FieldError id={`${id}-error`} message={problem ?? null} />
            </div>
          );
        })}
        <FormActions
          error={error}
          onCancel={onClose}
          pending={create.isPending}
          label="Pre-create cluster"
          pendingLabel="Creating…"
        />
      </form>
    </Dialog>
  );
}
