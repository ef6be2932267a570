import { Skeleton, TableSkeleton } from "@/components/ui/skeleton";

export default function Loading() {
  return (
    <div className="space-y-6">
      <div className="flex items-end justify-between">
        <div className="space-y-2">
          <Skeleton className="h-7 w-32" />
          <Skeleton className="h-4 w-[34rem]" />
        </div>
        <Skeleton className="h-9 w-28" />
      </div>
      <TableSkeleton rows={6} label="Loading rollouts" />
    </div>
  );
}
