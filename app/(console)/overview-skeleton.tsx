import { Skeleton, SkeletonRow } from "@/components/ui/skeleton";
import { StatusCountCardsSkeleton } from "@/components/overview/status-count-cards";

/** The overview's layout while its data loads: same boxes, same heights, so nothing jumps. */
export function OverviewSkeleton() {
  return (
    <div role="status" aria-label="Loading the overview" className="space-y-6">
      <StatusCountCardsSkeleton />
      <SkeletonRow count={2} height="h-[301px]" className="grid-cols-1 gap-6 lg:grid-cols-2" />
      <Skeleton className="h-36" />
      <SkeletonRow count={3} height="h-48" className="grid-cols-1 gap-6 lg:grid-cols-3" />
    </div>
  );
}
