import { PageHeaderSkeleton, SkeletonStack, TableSkeleton } from "@/components/ui/skeleton";

export default function Loading() {
  return (
    <div className="space-y-6">
      <PageHeaderSkeleton breadcrumb />
      <SkeletonStack heights={["h-24", "h-20"]} className="space-y-4" />
      <TableSkeleton rows={5} label="Loading the gate" />
    </div>
  );
}
