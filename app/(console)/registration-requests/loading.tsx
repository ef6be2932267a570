import { ListPageSkeleton } from "@/components/ui/skeleton";

export default function Loading() {
  return <ListPageSkeleton label="Loading registration approvals" rows={3} />;
}
