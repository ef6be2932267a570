import { ClusterDetailSkeleton } from "@/components/clusters/cluster-detail-skeleton";

export default function Loading() {
  return <ClusterDetailSkeleton />;
}
