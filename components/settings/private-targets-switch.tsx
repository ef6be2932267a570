"use client";

import { useSettingSwitch } from "@/lib/client/settings";
import { SETTING_LABELS } from "@/lib/domain/settings";
import { CheckboxField } from "@/components/ui/field";
import { InlineError } from "@/components/ui/inline-error";

type PrivateTargetsSetting = "webhookAllowPrivateTargets" | "hubAllowPrivateTargets";

/** A switch for private targets (server-side request forgery): off, only public addresses are reached. */
export function PrivateTargetsSwitch({ setting, hint }: { setting: PrivateTargetsSetting; hint: string }) {
  const toggle = useSettingSwitch(
    (s) => s[setting],
    (on) => ({ [setting]: on }),
  );
  if (!toggle.ready) return null;
  return (
    <div className="mb-4">
      <CheckboxField
        id={setting}
        label={SETTING_LABELS[setting]}
        checked={toggle.checked}
        disabled={toggle.saving}
        onCheckedChange={toggle.set}
        hint={
          <>
            Private (10/8, 172.16/12, 192.168/16, fc00::/7) and loopback addresses are refused unless this is on; link-local and
            cloud metadata addresses always are. {hint}
          </>
        }
      />
      {toggle.error && <InlineError className="mt-2" error={toggle.error} />}
    </div>
  );
}
