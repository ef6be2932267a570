import type { Metadata } from "next";
import { requirePage } from "@/lib/server/auth/page-auth";
import { PageHeader } from "@/components/ui/page-header";
import { SettingsForm } from "./settings-form";

export const metadata: Metadata = { title: "Settings" };

export default async function SettingsPage() {
  await requirePage("admin");
  return (
    <>
      <PageHeader
        title="Settings"
        description="Fleet-wide rules. Every change is audited and applies to all instances within seconds."
      />
      <SettingsForm />
    </>
  );
}
