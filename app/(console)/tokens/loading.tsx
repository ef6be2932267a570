import { Skeleton, TableSkeleton } from "@/components/ui/skeleton";

export default function Loading() {
  return (
    <div className="space-y-6">
      <div className="space-y-2">
        <Skeleton className="h-7 w-56" />
        <Skeleton className="h-4 w-[32rem]" />
      </div>
      <div className="flex items-center justify-between">
        <Skeleton className="h-5 w-24" />
        <Skeleton className="h-9 w-28" />
      </div>
      <TableSkeleton rows={4} label="Loading registration tokens" />
      <Skeleton className="mt-4 h-5 w-48" />
      <TableSkeleton rows={5} label="Loading registration attempts" />
    </div>
  );
}
