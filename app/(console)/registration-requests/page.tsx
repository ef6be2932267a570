import type { Metadata } from "next";
import { openPage } from "@/lib/server/console/open-page";
import { PageHeader } from "@/components/ui/page-header";
import { RequestsQueue } from "@/components/registration-requests/requests-queue";
import { PageHydration } from "@/components/shell/page-hydration";

export const metadata: Metadata = { title: "Approvals" };

export default async function RegistrationRequestsPage() {
  const { state, now } = await openPage("/registration-requests");
  return (
    <>
      <PageHeader
        title="Registration approvals"
        description="Clusters registering with a token that requires approval wait here, checked and holding one of the token's uses, until you let them in or turn them away."
      />
      <PageHydration state={state} now={now}>
        <RequestsQueue canDecide />
      </PageHydration>
    </>
  );
}
