"use client";

import type { DrainOptions } from "@/lib/client/clusters";
import { CheckboxField } from "@/components/ui/field";

export const NO_DRAIN_OPTIONS: DrainOptions = { force: false, deleteEmptyDirData: false };

/**
 * What a node pool's drain may lose, as `kubectl drain`'s --force and --delete-emptydir-data.
 * Both off: the agent refuses the drain, naming the pods, rather than lose them.
 */
export function DrainOptionsFields({
  value,
  disabled,
  onChange,
}: {
  value: DrainOptions;
  disabled?: boolean;
  onChange: (value: DrainOptions) => void;
}) {
  return (
    <fieldset className="mb-4 space-y-3" data-testid="drain-options">
      <legend className="mb-2 text-sm font-medium">Pods the drain would lose</legend>
      <p className="text-xs text-slate-600 dark:text-slate-400">
        Unless allowed here, the agent refuses the drain and names the pods; DaemonSet and static pods are never evicted.
      </p>
      <CheckboxField
        id="drain-force"
        label="Evict pods no controller recreates"
        hint="Bare pods (no Deployment, StatefulSet, Job or other owner) are deleted for good: nothing starts them again elsewhere."
        checked={value.force}
        disabled={disabled}
        onCheckedChange={(force) => onChange({ ...value, force })}
      />
      <CheckboxField
        id="drain-empty-dir"
        label="Evict pods with emptyDir data"
        hint="Whatever those pods keep in emptyDir volumes (caches, scratch files, local queues) is deleted with them."
        checked={value.deleteEmptyDirData}
        disabled={disabled}
        onCheckedChange={(deleteEmptyDirData) => onChange({ ...value, deleteEmptyDirData })}
      />
    </fieldset>
  );
}
