import { RolloutFormSkeleton } from "@/components/operations/rollout-skeletons";

export default function Loading() {
  return <RolloutFormSkeleton withHeader />;
}
