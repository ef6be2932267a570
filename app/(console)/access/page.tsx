import type { Metadata } from "next";
import { highestRole } from "@/lib/domain/teams";
import { accessOf } from "@/lib/server/auth/principal";
import { openPage } from "@/lib/server/console/open-page";
import { NoAccess } from "@/components/access/no-access";
import { PageHeader } from "@/components/ui/page-header";
import { PageHydration } from "@/components/shell/page-hydration";
import { AccessView } from "./access-view";

export const metadata: Metadata = { title: "Your access" };

const DESCRIPTION = "What you can see and do in this console and its API, and why.";

export default async function AccessPage() {
  const { principal, state, now } = await openPage("/access");
  return (
    <>
      <PageHeader title="Your access" description={DESCRIPTION} />
      {/* The API answers only those with a role somewhere: without one, the page says so itself. */}
      {highestRole(accessOf(principal)) ? (
        <PageHydration state={state} now={now}>
          <AccessView />
        </PageHydration>
      ) : (
        <NoAccess email={principal.user?.email ?? principal.actor.label} />
      )}
    </>
  );
}
