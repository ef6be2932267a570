import { RolloutDetailSkeleton } from "@/components/rollouts/rollout-skeletons";

export default function Loading() {
  return <RolloutDetailSkeleton />;
}
