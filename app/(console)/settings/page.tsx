import type { Metadata } from "next";
import { env } from "@/lib/env";
import { openPage } from "@/lib/server/console/open-page";
import { Card } from "@/components/ui/card";
import { PageHeader } from "@/components/ui/page-header";
import { ApprovalDefaultSwitch } from "@/components/settings/approval-default-switch";
import { ApiKeysSection } from "./api-keys-section";
import { ClusterProfileExportSection } from "./cluster-profile-export-section";
import { FleetCaSection } from "./fleet-ca-section";
import { SettingsForm } from "./settings-form";
import { SsoSection } from "./sso-section";
import { UsersSection } from "./users-section";
import { PageHydration } from "@/components/shell/page-hydration";

export const metadata: Metadata = { title: "Settings" };

export default async function SettingsPage() {
  const { principal, state, now } = await openPage("/settings");
  return (
    <PageHydration state={state} now={now}>
      <PageHeader
        title="Settings"
        description="Fleet-wide rules. Every change is audited and applies to all instances within seconds."
      />
      <SettingsForm />
      <div className="mt-8 space-y-6">
        <Card title={<span id="approvals">New clusters</span>} className="max-w-2xl">
          <ApprovalDefaultSwitch />
        </Card>
        <FleetCaSection />
        <ClusterProfileExportSection />
        <ApiKeysSection />
        <UsersSection currentEmail={principal.user?.email ?? null} />
        <SsoSection provider={env().oidc ? { name: env().oidc!.name, issuer: env().oidc!.issuer } : null} />
      </div>
    </PageHydration>
  );
}
