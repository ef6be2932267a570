import { Skeleton, SkeletonRow } from "@/components/ui/skeleton";

/** The Versions page's shape while it loads: stat row, matrix, two charts, flagged table. */
export function VersionsSkeleton() {
  return (
    <div role="status" aria-label="Loading versions" className="space-y-6">
      <SkeletonRow count={4} height="h-[6.5rem]" className="grid-cols-4 gap-4" />
      <Skeleton className="h-72" />
      <SkeletonRow count={2} height="h-80" className="grid-cols-2 gap-6" />
      <Skeleton className="h-64" />
    </div>
  );
}
