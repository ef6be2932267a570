import { PageHeader } from "@/components/ui/page-header";
import { AccessSkeleton } from "@/components/access/access-skeleton";

export default function Loading() {
  return (
    <>
      <PageHeader title="Your access" description="What you can see and do in this console and its API, and why." />
      <AccessSkeleton />
    </>
  );
}
