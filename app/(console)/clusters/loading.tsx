import { ClustersListSkeleton } from "@/components/clusters/clusters-list-skeleton";

export default function Loading() {
  return <ClustersListSkeleton withHeader />;
}
