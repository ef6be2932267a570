import type { Metadata } from "next";
import { hasRole } from "@/lib/domain/roles";
import { openPage } from "@/lib/server/console/open-page";
import { PageHeader } from "@/components/ui/page-header";
import { PageHydration } from "@/components/shell/page-hydration";
import { WebhooksSection } from "@/components/webhooks/webhooks-section";
import type { WebhookOwners } from "@/components/webhooks/create-webhook-dialog";

export const metadata: Metadata = { title: "Webhooks" };

export default async function WebhooksPage() {
  const { principal, state, now } = await openPage("/webhooks");
  // A fleet admin makes the fleet's subscriptions or any team's; a team admin, their teams' only.
  const owners: WebhookOwners = hasRole(principal.role, "admin")
    ? "fleet"
    : principal.teams.filter((g) => hasRole(g.role, "admin")).map((g) => ({ id: g.teamId, name: g.team }));
  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Events that need a person, POSTed to a chat channel or an incident tool: a team's subscriptions hear only of the team's clusters."
      />
      <PageHydration state={state} now={now}>
        <WebhooksSection owners={owners} />
      </PageHydration>
    </>
  );
}
