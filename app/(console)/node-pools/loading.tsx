import { Skeleton } from "@/components/ui/skeleton";
import { NodePoolsSkeleton } from "@/components/operations/node-pools-skeleton";

export default function Loading() {
  return (
    <div className="space-y-6">
      <div className="space-y-2">
        <Skeleton className="h-7 w-36" />
        <Skeleton className="h-4 w-[40rem]" />
      </div>
      <NodePoolsSkeleton />
    </div>
  );
}
