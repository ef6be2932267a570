import { Skeleton, SkeletonRow } from "@/components/ui/skeleton";

export default function Loading() {
  return (
    <div role="status" aria-label="Loading" className="space-y-6">
      <Skeleton className="h-7 w-48" />
      <SkeletonRow count={4} height="h-24" className="grid-cols-2 gap-4 lg:grid-cols-4" />
      <Skeleton className="h-64" />
    </div>
  );
}
