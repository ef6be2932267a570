import { Skeleton } from "@/components/ui/skeleton";

/** The Node pools page's shape: the totals, two capacity cards, the label table, two charts. */
export function NodePoolsSkeleton() {
  return (
    <div role="status" aria-label="Loading node pools" className="space-y-6">
      <div className="grid grid-cols-6 gap-4">
        {Array.from({ length: 6 }, (_, i) => (
          <Skeleton key={i} className="h-[6.5rem]" />
        ))}
      </div>
      <Skeleton className="h-72" />
      <Skeleton className="h-52" />
      <div className="grid grid-cols-2 gap-6">
        <Skeleton className="h-72" />
        <Skeleton className="h-72" />
      </div>
    </div>
  );
}
