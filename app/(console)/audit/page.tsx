import type { Metadata } from "next";
import { requirePage } from "@/lib/server/auth/page-auth";
import { PageHeader } from "@/components/ui/page-header";
import { AuditView } from "./audit-view";

export const metadata: Metadata = { title: "Audit log" };

export default async function AuditPage() {
  await requirePage("/audit");
  return (
    <>
      <PageHeader
        title="Audit log"
        description="Every change to the fleet: who did it, to what, and when. Secrets are never recorded. Times are in your time zone; the CSV export has ISO 8601 times in UTC."
      />
      <AuditView />
    </>
  );
}
