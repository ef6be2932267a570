import { Skeleton } from "@/components/ui/skeleton";

/** The detail page's layout while it loads: main column and side column, same proportions. */
export function ClusterDetailSkeleton() {
  return (
    <div role="status" aria-label="Loading the cluster" className="space-y-6">
      <div className="space-y-2">
        <Skeleton className="h-4 w-20" />
        <Skeleton className="h-7 w-64" />
        <Skeleton className="h-4 w-80" />
      </div>
      <div className="grid grid-cols-3 items-start gap-6">
        <div className="col-span-2 space-y-6">
          <Skeleton className="h-56" />
          <Skeleton className="h-64" />
          <Skeleton className="h-32" />
        </div>
        <div className="space-y-6">
          <Skeleton className="h-52" />
          <Skeleton className="h-64" />
          <Skeleton className="h-48" />
        </div>
      </div>
    </div>
  );
}
