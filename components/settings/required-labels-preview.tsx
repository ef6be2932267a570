"use client";

import { blockedByNewRequiredLabels } from "@/lib/domain/label-summary";
import { labelKeyProblem } from "@/lib/domain/labels";
import { useLabelSummary } from "@/lib/client/labels";

const clusters = (n: number) => `${n.toLocaleString("en-US")} cluster${n === 1 ? "" : "s"}`;

/**
 * Before a required label is saved: how many of the fleet's clusters lack each key being added
 * (they would fail the enrollment checklist and new ones without it are refused), counted from
 * GET /api/v1/labels as the keys are typed.
 */
export function RequiredLabelsPreview({ current, typed }: { current: readonly string[]; typed: string }) {
  const labels = useLabelSummary();
  const keys = typed
    .split(",")
    .map((k) => k.trim())
    .filter((k) => k && !labelKeyProblem(k));
  const added = labels.data ? blockedByNewRequiredLabels(current, keys, labels.data) : [];
  let text = "";
  if (labels.isError) text = `Could not count the clusters without the new keys (${labels.error.message}).`;
  else if (keys.some((k) => !current.includes(k)) && !labels.data) text = "Counting clusters without the new keys…";
  else if (added.length)
    text =
      added.map((a) => `${clusters(a.blocked)} of ${labels.data!.clusters.toLocaleString("en-US")} lack “${a.key}”`).join("; ") +
      (added.some((a) => a.blocked > 0) ? ": saving would block them until they carry it." : ": saving blocks none.");
  return (
    <span
      role="status"
      data-testid="required-labels-preview"
      className={added.some((a) => a.blocked > 0) ? "font-medium text-amber-800 dark:text-amber-300" : ""}
    >
      {text}
    </span>
  );
}
