"use client";

import { useSettingSwitch } from "@/lib/client/settings";
import { SETTING_LABELS } from "@/lib/domain/settings";
import { CheckboxField } from "@/components/ui/field";
import { InlineError } from "@/components/ui/inline-error";

/** The fleet-wide default for new tokens: on, every registration waits in Approvals unless the minter says otherwise. */
export function ApprovalDefaultSwitch() {
  const toggle = useSettingSwitch(
    (s) => s.requireApprovalByDefault,
    (on) => ({ requireApprovalByDefault: on }),
  );
  if (!toggle.ready) return null;
  return (
    <div>
      <CheckboxField
        id="requireApprovalByDefault"
        label={SETTING_LABELS.requireApprovalByDefault}
        checked={toggle.checked}
        disabled={toggle.saving}
        onCheckedChange={toggle.set}
        hint="The Mint form starts with “Require approval” ticked; a token minted through the API without requireApproval follows this too. Existing tokens keep what they were minted with."
      />
      {toggle.error && <InlineError className="mt-2" error={toggle.error} />}
    </div>
  );
}
