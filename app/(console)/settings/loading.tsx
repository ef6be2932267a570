import { Skeleton } from "@/components/ui/skeleton";

export default function Loading() {
  return (
    <div role="status" aria-label="Loading settings" className="space-y-6">
      <Skeleton className="h-7 w-32" />
      <Skeleton className="h-80 max-w-2xl" />
    </div>
  );
}
