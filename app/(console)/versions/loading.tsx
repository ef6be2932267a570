import { PageHeader } from "@/components/ui/page-header";
import { VersionsSkeleton } from "@/components/versions/versions-skeleton";

export default function Loading() {
  return (
    <>
      <PageHeader
        title="Versions"
        description="Which agent and Kubernetes versions the fleet runs, and which clusters need an upgrade."
      />
      <VersionsSkeleton />
    </>
  );
}
