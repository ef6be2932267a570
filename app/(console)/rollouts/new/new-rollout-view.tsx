"use client";

import { useSearchParams } from "next/navigation";
import { useVersions } from "@/lib/client/versions";
import { rolloutPrefill } from "@/lib/client/cluster-bulk";
import { RolloutForm, type RolloutTeamChoice } from "@/components/rollouts/rollout-form";
import { RolloutFormSkeleton } from "@/components/rollouts/rollout-skeletons";
import { byVersion } from "@/components/versions/version-math";

export function NewRolloutView({
  clusterIds,
  teams,
  canListGroups,
}: {
  clusterIds: string[];
  /** the teams the caller plans for when they have no fleet operator role */
  teams: RolloutTeamChoice[];
  canListGroups: boolean;
}) {
  // The matrix suggests the target version; without it (an error) the form still works.
  const versions = useVersions();
  const prefill = rolloutPrefill(new URLSearchParams(useSearchParams().toString()));
  if (versions.isPending) return <RolloutFormSkeleton />;
  const known = (versions.data?.agentVersions ?? [])
    .map((a) => a.version)
    .sort(byVersion)
    .reverse();
  return (
    <RolloutForm
      recommended={versions.data?.matrix.recommendedAgentVersion ?? ""}
      knownVersions={known}
      clusterIds={clusterIds}
      initial={prefill}
      teams={teams}
      canListGroups={canListGroups}
    />
  );
}
