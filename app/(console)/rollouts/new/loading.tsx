import { RolloutFormSkeleton } from "@/components/rollouts/rollout-skeletons";

export default function Loading() {
  return <RolloutFormSkeleton withHeader />;
}
