import { PageHeaderSkeleton, Skeleton, TableSkeleton } from "@/components/ui/skeleton";

export default function Loading() {
  return (
    <div className="space-y-6">
      <div className="flex items-end justify-between">
        <PageHeaderSkeleton />
        <Skeleton className="h-9 w-28" />
      </div>
      <TableSkeleton rows={6} label="Loading rollouts" />
    </div>
  );
}
