import { Skeleton } from "@/components/ui/skeleton";

/** The Versions page's shape while it loads: stat row, matrix, two charts, flagged table. */
export function VersionsSkeleton() {
  return (
    <div role="status" aria-label="Loading versions" className="space-y-6">
      <div className="grid grid-cols-4 gap-4">
        {Array.from({ length: 4 }, (_, i) => (
          <Skeleton key={i} className="h-[6.5rem]" />
        ))}
      </div>
      <Skeleton className="h-72" />
      <div className="grid grid-cols-2 gap-6">
        <Skeleton className="h-80" />
        <Skeleton className="h-80" />
      </div>
      <Skeleton className="h-64" />
    </div>
  );
}
