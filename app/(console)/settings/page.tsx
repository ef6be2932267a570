import type { Metadata } from "next";
import Link from "next/link";
import { env } from "@/lib/env";
import { openPage } from "@/lib/server/console/open-page";
import { buttonClass } from "@/components/ui/button";
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
        {/* Sources are managed in one place, their page; this only points there. */}
        <Card title={<span id="cluster-api">Cluster API</span>} className="max-w-2xl">
          <p className="text-sm text-slate-600 dark:text-slate-400">
            Management clusters whose Cluster API Clusters join the fleet by themselves as they are created, and leave as they are
            deleted. Add them, and follow each cluster&apos;s import, on the Cluster API page.
          </p>
          <Link href="/cluster-api" className={buttonClass("secondary", "mt-3")}>
            Manage Cluster API sources
          </Link>
        </Card>
        <ApiKeysSection />
        <UsersSection currentEmail={principal.user?.email ?? null} />
        <SsoSection provider={env().oidc ? { name: env().oidc!.name, issuer: env().oidc!.issuer } : null} />
      </div>
    </PageHydration>
  );
}
