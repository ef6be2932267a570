import { Skeleton, TableSkeleton } from "@/components/ui/skeleton";

/** The Cluster API page's body while it loads: a source card and the clusters table. */
export function CapiSourcesSkeleton() {
  return (
    <div className="space-y-8">
      <div className="space-y-4">
        <Skeleton className="h-6 w-48" />
        <Skeleton className="h-72 w-full xl:w-1/2" />
      </div>
      <div className="space-y-4">
        <Skeleton className="h-6 w-40" />
        <TableSkeleton rows={3} label="Loading CAPI Clusters" />
      </div>
    </div>
  );
}
