import type { Metadata } from "next";
import { HydrationBoundary } from "@tanstack/react-query";
import { openPage } from "@/lib/server/console/open-page";
import { PageHeader } from "@/components/ui/page-header";
import { RequestsQueue } from "@/components/registration-requests/requests-queue";

export const metadata: Metadata = { title: "Approvals" };

export default async function RegistrationRequestsPage() {
  const { state } = await openPage("/registration-requests");
  return (
    <>
      <PageHeader
        title="Registration approvals"
        description="Clusters registering with a token that requires approval wait here, checked and holding one of the token's uses, until you let them in or turn them away."
      />
      <HydrationBoundary state={state}>
        <RequestsQueue canDecide />
      </HydrationBoundary>
    </>
  );
}
