import { Skeleton } from "@/components/ui/skeleton";
import { StatusCountCardsSkeleton } from "@/components/overview/status-count-cards";

/** The overview's layout while its data loads: same boxes, same heights, so nothing jumps. */
export function OverviewSkeleton() {
  return (
    <div role="status" aria-label="Loading the overview" className="space-y-6">
      <StatusCountCardsSkeleton />
      <div className="grid grid-cols-2 gap-6">
        <Skeleton className="h-[301px]" />
        <Skeleton className="h-[301px]" />
      </div>
      <Skeleton className="h-36" />
      <div className="grid grid-cols-3 gap-6">
        <Skeleton className="h-48" />
        <Skeleton className="h-48" />
        <Skeleton className="h-48" />
      </div>
    </div>
  );
}
