import { ListPageSkeleton, Skeleton, TableSkeleton } from "@/components/ui/skeleton";

export default function Loading() {
  return (
    <div className="space-y-6">
      <ListPageSkeleton rows={4} label="Loading registration tokens" />
      <Skeleton className="mt-4 h-5 w-48" />
      <TableSkeleton rows={5} label="Loading registration attempts" />
    </div>
  );
}
