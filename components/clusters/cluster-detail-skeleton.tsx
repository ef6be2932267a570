import { PageHeaderSkeleton, SkeletonStack } from "@/components/ui/skeleton";

/** The detail page's layout while it loads: main column and side column, same proportions. */
export function ClusterDetailSkeleton() {
  return (
    <div role="status" aria-label="Loading the cluster" className="space-y-6">
      <PageHeaderSkeleton breadcrumb />
      <div className="grid grid-cols-1 items-start gap-6 lg:grid-cols-3">
        <SkeletonStack className="lg:col-span-2" heights={["h-56", "h-64", "h-32"]} />
        <SkeletonStack heights={["h-52", "h-64", "h-48"]} />
      </div>
    </div>
  );
}
