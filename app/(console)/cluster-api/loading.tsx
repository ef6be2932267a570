import { PageHeaderSkeleton } from "@/components/ui/skeleton";
import { CapiSourcesSkeleton } from "@/components/cluster-api/cluster-api-skeleton";

export default function Loading() {
  return (
    <div className="space-y-6">
      <PageHeaderSkeleton />
      <CapiSourcesSkeleton />
    </div>
  );
}
