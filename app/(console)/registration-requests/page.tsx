import type { Metadata } from "next";
import { requirePage } from "@/lib/server/auth/page-auth";
import { PageHeader } from "@/components/ui/page-header";
import { RequestsQueue } from "@/components/registration-requests/requests-queue";

export const metadata: Metadata = { title: "Approvals" };

export default async function RegistrationRequestsPage() {
  await requirePage("/registration-requests");
  return (
    <>
      <PageHeader
        title="Registration approvals"
        description="Clusters registering with a token that requires approval wait here, checked and holding one of the token's uses, until you let them in or turn them away."
      />
      <RequestsQueue canDecide />
    </>
  );
}
