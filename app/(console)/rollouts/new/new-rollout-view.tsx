"use client";

import { useVersions } from "@/lib/client/operations";
import { RolloutForm } from "@/components/operations/rollout-form";
import { RolloutFormSkeleton } from "@/components/operations/rollout-skeletons";
import { byVersion } from "@/components/operations/version-math";

export function NewRolloutView() {
  // The matrix suggests the target version; without it (an error) the form still works.
  const versions = useVersions();
  if (versions.isPending) return <RolloutFormSkeleton />;
  const known = (versions.data?.agentVersions ?? [])
    .map((a) => a.version)
    .sort(byVersion)
    .reverse();
  return <RolloutForm recommended={versions.data?.matrix.recommendedAgentVersion ?? ""} knownVersions={known} />;
}
