"use client";

import { useSearchParams } from "next/navigation";
import { useVersions } from "@/lib/client/versions";
import { rolloutPrefill } from "@/lib/client/cluster-bulk";
import { RolloutForm } from "@/components/rollouts/rollout-form";
import { RolloutFormSkeleton } from "@/components/rollouts/rollout-skeletons";
import { byVersion } from "@/components/versions/version-math";

export function NewRolloutView() {
  // The matrix suggests the target version; without it (an error) the form still works.
  const versions = useVersions();
  const prefill = rolloutPrefill(new URLSearchParams(useSearchParams().toString()));
  if (versions.isPending) return <RolloutFormSkeleton />;
  const known = (versions.data?.agentVersions ?? [])
    .map((a) => a.version)
    .sort(byVersion)
    .reverse();
  return (
    <>
      {prefill.clusterIds.length > 0 && (
        <p
          role="note"
          className="mb-4 rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:bg-amber-950/40 dark:text-amber-200"
        >
          {prefill.clusterIds.length} cluster{prefill.clusterIds.length === 1 ? " was" : "s were"} picked in the cluster list.
          Rollouts choose clusters by a label selector or a group: describe them below.
        </p>
      )}
      <RolloutForm
        recommended={versions.data?.matrix.recommendedAgentVersion ?? ""}
        knownVersions={known}
        initial={prefill.draft}
      />
    </>
  );
}
