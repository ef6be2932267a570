import { Skeleton, SkeletonRow } from "@/components/ui/skeleton";

/** The Node pools page's shape: the totals, two capacity cards, the label table, two charts. */
export function NodePoolsSkeleton() {
  return (
    <div role="status" aria-label="Loading node pools" className="space-y-6">
      <SkeletonRow count={6} height="h-[6.5rem]" className="grid-cols-2 gap-4 sm:grid-cols-3 xl:grid-cols-6" />
      <Skeleton className="h-72" />
      <Skeleton className="h-52" />
      <SkeletonRow count={2} height="h-72" className="grid-cols-1 gap-6 lg:grid-cols-2" />
    </div>
  );
}
