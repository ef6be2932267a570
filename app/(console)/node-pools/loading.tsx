import { PageHeaderSkeleton } from "@/components/ui/skeleton";
import { NodePoolsSkeleton } from "@/components/node-pools/node-pools-skeleton";

export default function Loading() {
  return (
    <div className="space-y-6">
      <PageHeaderSkeleton />
      <NodePoolsSkeleton />
    </div>
  );
}
