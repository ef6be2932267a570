"use client";

import { useSettings, useUpdateSettings } from "@/lib/client/settings";
import { SETTING_LABELS } from "@/lib/domain/settings";
import { CheckboxField } from "@/components/ui/field";
import { InlineError } from "@/components/ui/inline-error";

type PrivateTargetsSetting = "webhookAllowPrivateTargets" | "hubAllowPrivateTargets";

/** A switch for private targets (server-side request forgery): off, only public addresses are reached. */
export function PrivateTargetsSwitch({ setting, hint }: { setting: PrivateTargetsSetting; hint: string }) {
  const settings = useSettings();
  const update = useUpdateSettings();
  if (!settings.data) return null;
  // While the change is saved the box shows what was asked for; a refusal puts it back.
  const checked = update.isPending ? (update.variables[setting] ?? settings.data[setting]) : settings.data[setting];
  return (
    <div className="mb-4">
      <CheckboxField
        id={setting}
        label={SETTING_LABELS[setting]}
        checked={checked}
        disabled={update.isPending}
        onCheckedChange={(on) => update.mutate({ [setting]: on })}
        hint={
          <>
            Private (10/8, 172.16/12, 192.168/16, fc00::/7) and loopback addresses are refused unless this is on; link-local and
            cloud metadata addresses always are. {hint}
          </>
        }
      />
      {update.error && <InlineError className="mt-2" error={update.error} />}
    </div>
  );
}
