import { PageHeaderSkeleton, Skeleton } from "@/components/ui/skeleton";

export default function Loading() {
  return (
    <div role="status" aria-label="Loading the deregistration wizard" className="space-y-6">
      <PageHeaderSkeleton breadcrumb />
      <div className="grid grid-cols-1 lg:grid-cols-[minmax(0,1fr)_20rem] items-start gap-6">
        <div className="space-y-6">
          {Array.from({ length: 5 }, (_, i) => (
            <div key={i} className="flex gap-4">
              <Skeleton className="h-8 w-8 shrink-0 rounded-full" />
              <div className="flex-1 space-y-2 pt-1">
                <Skeleton className="h-4 w-48" />
                <Skeleton className="h-4 w-full max-w-lg" />
                {i === 0 && <Skeleton className="mt-3 h-40 w-full" />}
              </div>
            </div>
          ))}
        </div>
        <Skeleton className="h-64" />
      </div>
    </div>
  );
}
