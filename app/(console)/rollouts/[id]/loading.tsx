import { RolloutDetailSkeleton } from "@/components/operations/rollout-skeletons";

export default function Loading() {
  return <RolloutDetailSkeleton />;
}
