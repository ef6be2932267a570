import type { Metadata } from "next";
import { openPage, type PageProps } from "@/lib/server/console/open-page";
import { PageHeader } from "@/components/ui/page-header";
import { AuditView } from "./audit-view";
import { PageHydration } from "@/components/shell/page-hydration";

export const metadata: Metadata = { title: "Audit log" };

export default async function AuditPage(props: PageProps) {
  const { state, now } = await openPage("/audit", props);
  return (
    <>
      <PageHeader
        title="Audit log"
        description="Every change to the fleet: who did it, to what, and when. Secrets are never recorded. Times are in your time zone; the CSV export has ISO 8601 times in UTC."
      />
      <PageHydration state={state} now={now}>
        <AuditView />
      </PageHydration>
    </>
  );
}
