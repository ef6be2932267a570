"use client";

import { useState, type FormEvent } from "react";
import { settingsPatchSchema, type Settings } from "@/lib/domain/settings";
import { useSettings, useUpdateSettings } from "@/lib/client/settings";
import { ApiRequestError } from "@/lib/client/fetch-json";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Field } from "@/components/ui/field";
import { Skeleton } from "@/components/ui/skeleton";
import { ErrorState } from "@/components/ui/states";

type Draft = Record<keyof Settings, string>;

function toDraft(s: Settings): Draft {
  return {
    notReadyThresholdSeconds: String(s.notReadyThresholdSeconds),
    heartbeatIntervalSeconds: String(s.heartbeatIntervalSeconds),
    requiredLabels: s.requiredLabels.join(", "),
    certificateValidityDays: String(s.certificateValidityDays),
    certificateRenewalGraceDays: String(s.certificateRenewalGraceDays),
    disconnectTimeoutSeconds: String(s.disconnectTimeoutSeconds),
    heartbeatHistoryRetentionDays: String(s.heartbeatHistoryRetentionDays),
    statusEventRetentionDays: String(s.statusEventRetentionDays),
    registrationAttemptRetentionDays: String(s.registrationAttemptRetentionDays),
    auditLogRetentionDays: String(s.auditLogRetentionDays),
  };
}

function fromDraft(d: Draft) {
  return {
    notReadyThresholdSeconds: Number(d.notReadyThresholdSeconds),
    heartbeatIntervalSeconds: Number(d.heartbeatIntervalSeconds),
    requiredLabels: d.requiredLabels
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
    certificateValidityDays: Number(d.certificateValidityDays),
    certificateRenewalGraceDays: Number(d.certificateRenewalGraceDays),
    disconnectTimeoutSeconds: Number(d.disconnectTimeoutSeconds),
    heartbeatHistoryRetentionDays: Number(d.heartbeatHistoryRetentionDays),
    statusEventRetentionDays: Number(d.statusEventRetentionDays),
    registrationAttemptRetentionDays: Number(d.registrationAttemptRetentionDays),
    auditLogRetentionDays: Number(d.auditLogRetentionDays),
  };
}

export function SettingsForm() {
  const settings = useSettings();
  if (settings.isPending) return <Skeleton className="h-80 max-w-2xl" />;
  if (settings.isError) return <ErrorState message={settings.error.message} onRetry={() => void settings.refetch()} />;
  // Not keyed on the data: a successful save updates it, and remounting would lose "Saved.".
  return <Editor current={settings.data} />;
}

function Editor({ current }: { current: Settings }) {
  const update = useUpdateSettings();
  const [draft, setDraft] = useState<Draft>(() => toDraft(current));
  const [errors, setErrors] = useState<Partial<Record<string, string>>>({});
  const [saved, setSaved] = useState(false);

  const set = (key: keyof Draft) => (e: { target: { value: string } }) => {
    setDraft((d) => ({ ...d, [key]: e.target.value }));
    setSaved(false);
  };

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    const parsed = settingsPatchSchema.safeParse(fromDraft(draft));
    if (!parsed.success) {
      setErrors(Object.fromEntries(parsed.error.issues.map((i) => [String(i.path[0] ?? ""), i.message])));
      return;
    }
    setErrors({});
    update.mutate(parsed.data, { onSuccess: () => setSaved(true) });
  }

  const serverError = update.error instanceof ApiRequestError ? update.error : null;
  return (
    <Card className="max-w-2xl">
      <form onSubmit={onSubmit} className="space-y-5" noValidate>
        <div className="grid grid-cols-1 gap-5 sm:grid-cols-2">
          <Field
            id="notReadyThresholdSeconds"
            label="NotReady threshold (seconds)"
            type="number"
            min={10}
            value={draft.notReadyThresholdSeconds}
            onChange={set("notReadyThresholdSeconds")}
            hint="A cluster without a heartbeat for this long turns NotReady."
            error={errors.notReadyThresholdSeconds}
          />
          <Field
            id="heartbeatIntervalSeconds"
            label="Heartbeat interval (seconds)"
            type="number"
            min={1}
            value={draft.heartbeatIntervalSeconds}
            onChange={set("heartbeatIntervalSeconds")}
            hint="Told to agents in every answer; must be below the threshold."
            error={errors.heartbeatIntervalSeconds}
          />
          <Field
            id="certificateValidityDays"
            label="Certificate validity (days)"
            type="number"
            min={1}
            value={draft.certificateValidityDays}
            onChange={set("certificateValidityDays")}
            hint="For newly issued agent certificates."
            error={errors.certificateValidityDays}
          />
          <Field
            id="certificateRenewalGraceDays"
            label="Renewal grace (days)"
            type="number"
            min={0}
            value={draft.certificateRenewalGraceDays}
            onChange={set("certificateRenewalGraceDays")}
            hint="An agent whose certificate expired less than this ago may still renew it (rotate only)."
            error={errors.certificateRenewalGraceDays}
          />
          <Field
            id="disconnectTimeoutSeconds"
            label="Disconnect timeout (seconds)"
            type="number"
            min={5}
            value={draft.disconnectTimeoutSeconds}
            onChange={set("disconnectTimeoutSeconds")}
            hint="How long an agent has to acknowledge disconnect before removal may be forced."
            error={errors.disconnectTimeoutSeconds}
          />
          <Field
            id="requiredLabels"
            label="Required labels"
            value={draft.requiredLabels}
            onChange={set("requiredLabels")}
            hint="Comma-separated label keys every cluster must carry."
            error={errors.requiredLabels}
          />
        </div>
        <fieldset className="space-y-3">
          <legend className="text-sm font-semibold">Retention</legend>
          <p className="text-sm text-slate-500 dark:text-slate-400">
            Older rows are deleted every minute. Audit entries are first appended to the archive in the data directory.
          </p>
          <div className="grid grid-cols-1 gap-5 sm:grid-cols-2">
            <Field
              id="heartbeatHistoryRetentionDays"
              label="Heartbeat history (days)"
              type="number"
              min={1}
              value={draft.heartbeatHistoryRetentionDays}
              onChange={set("heartbeatHistoryRetentionDays")}
              hint="Heartbeats per minute and fleet status counts behind the charts (up to 7 days are shown)."
              error={errors.heartbeatHistoryRetentionDays}
            />
            <Field
              id="statusEventRetentionDays"
              label="Status events (days)"
              type="number"
              min={1}
              value={draft.statusEventRetentionDays}
              onChange={set("statusEventRetentionDays")}
              hint="Status changes and lifecycle milestones in each cluster's history."
              error={errors.statusEventRetentionDays}
            />
            <Field
              id="registrationAttemptRetentionDays"
              label="Registration attempts (days)"
              type="number"
              min={1}
              value={draft.registrationAttemptRetentionDays}
              onChange={set("registrationAttemptRetentionDays")}
              hint="The attempts log and the registration success rate (at most 100,000 are kept)."
              error={errors.registrationAttemptRetentionDays}
            />
            <Field
              id="auditLogRetentionDays"
              label="Audit log (days)"
              type="number"
              min={30}
              value={draft.auditLogRetentionDays}
              onChange={set("auditLogRetentionDays")}
              hint="Older entries move to audit-archive/YYYY-MM.jsonl in the data directory."
              error={errors.auditLogRetentionDays}
            />
          </div>
        </fieldset>
        {serverError && (
          <p
            role="alert"
            className="rounded-md bg-rose-50 px-3 py-2 text-sm text-rose-700 dark:bg-rose-950/50 dark:text-rose-300"
          >
            {serverError.message}
          </p>
        )}
        <div className="flex items-center gap-3">
          <Button type="submit" disabled={update.isPending}>
            {update.isPending ? "Saving…" : "Save settings"}
          </Button>
          {saved && (
            <p role="status" className="text-sm text-emerald-700 dark:text-emerald-400">
              Saved.
            </p>
          )}
        </div>
      </form>
    </Card>
  );
}
