import { Skeleton, TableSkeleton } from "@/components/ui/skeleton";

export default function Loading() {
  return (
    <div className="space-y-6">
      <Skeleton className="h-7 w-40" />
      <TableSkeleton rows={3} label="Loading webhooks" />
    </div>
  );
}
