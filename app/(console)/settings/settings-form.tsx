"use client";

import { useState, type FormEvent } from "react";
import { SETTING_LABELS, settingsPatchSchema, type Settings } from "@/lib/domain/settings";
import { PROVISIONING_OBJECTIVE_MINUTES } from "@/lib/domain/provisioning-time";
import { RequiredLabelsPreview } from "@/components/settings/required-labels-preview";
import { useDebouncedValue } from "@/components/ui/use-debounced-value";
import { useSettings, useUpdateSettings } from "@/lib/client/settings";
import { ApiRequestError } from "@/lib/client/fetch-json";
import { SaveActions } from "@/components/ui/form-actions";
import { Card } from "@/components/ui/card";
import { Field } from "@/components/ui/field";
import { Skeleton } from "@/components/ui/skeleton";
import { ErrorState } from "@/components/ui/states";

// The SSO settings have their own section (sso-section.tsx), and the private-target switches are
// set beside what they govern (the Webhooks and ClusterProfile export sections), and the approval
// default (requireApprovalByDefault) has its own "New clusters" card: none is part of this form's patch.
type Draft = Record<
  Exclude<
    keyof Settings,
    | "ssoRoleMapping"
    | "ssoTrustedEmailIssuer"
    | "webhookAllowPrivateTargets"
    | "hubAllowPrivateTargets"
    | "requireApprovalByDefault"
  >,
  string
>;
type Errors = Partial<Record<keyof Settings, string>>;

// The required-label preview recounts as keys are typed, once typing pauses.
const PREVIEW_DEBOUNCE_MS = 300;

/** Messages by the field they belong to (zod's issues here, the server's `details` on a 400); the first per field wins. */
function byField(items: readonly { field: string; message: string }[]): Errors {
  const out: Record<string, string> = {};
  for (const { field, message } of items) {
    const key = field.split(".")[0]!;
    if (key in SETTING_LABELS) out[key] ??= message;
  }
  return out;
}

/** The server's 400 as field errors, or null when it names no field of the form. */
function serverFieldErrors(err: unknown): Errors | null {
  if (!(err instanceof ApiRequestError) || !Array.isArray(err.details)) return null;
  const details = (err.details as { field?: unknown; message?: unknown }[]).flatMap((d) =>
    typeof d.field === "string" && typeof d.message === "string" ? [{ field: d.field, message: d.message }] : [],
  );
  const errors = byField(details);
  return Object.keys(errors).length ? errors : null;
}

function toDraft(s: Settings): Draft {
  return {
    notReadyThresholdSeconds: String(s.notReadyThresholdSeconds),
    heartbeatIntervalSeconds: String(s.heartbeatIntervalSeconds),
    requiredLabels: s.requiredLabels.join(", "),
    certificateValidityDays: String(s.certificateValidityDays),
    certificateRenewalGraceDays: String(s.certificateRenewalGraceDays),
    disconnectTimeoutSeconds: String(s.disconnectTimeoutSeconds),
    flappingThresholdPerHour: String(s.flappingThresholdPerHour),
    provisioningThresholdMinutes: String(s.provisioningThresholdMinutes),
    heartbeatHistoryRetentionDays: String(s.heartbeatHistoryRetentionDays),
    statusEventRetentionDays: String(s.statusEventRetentionDays),
    registrationAttemptRetentionDays: String(s.registrationAttemptRetentionDays),
    auditLogRetentionDays: String(s.auditLogRetentionDays),
    deniedKeyCooldownHours: String(s.deniedKeyCooldownHours),
    clusterLinkTemplate: s.clusterLinkTemplate ?? "",
    kubeContextTemplate: s.kubeContextTemplate ?? "",
    productionSelector: s.productionSelector ?? "",
    drainStartsPerMinute: String(s.drainStartsPerMinute),
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
    flappingThresholdPerHour: Number(d.flappingThresholdPerHour),
    provisioningThresholdMinutes: Number(d.provisioningThresholdMinutes),
    heartbeatHistoryRetentionDays: Number(d.heartbeatHistoryRetentionDays),
    statusEventRetentionDays: Number(d.statusEventRetentionDays),
    registrationAttemptRetentionDays: Number(d.registrationAttemptRetentionDays),
    auditLogRetentionDays: Number(d.auditLogRetentionDays),
    deniedKeyCooldownHours: Number(d.deniedKeyCooldownHours),
    clusterLinkTemplate: d.clusterLinkTemplate.trim() || null,
    kubeContextTemplate: d.kubeContextTemplate.trim() || null,
    productionSelector: d.productionSelector.trim() || null,
    drainStartsPerMinute: Number(d.drainStartsPerMinute),
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
  const [errors, setErrors] = useState<Errors>({});
  const typedLabels = useDebouncedValue(draft.requiredLabels, PREVIEW_DEBOUNCE_MS);
  const [saved, setSaved] = useState(false);

  const set = (key: keyof Draft) => (e: { target: { value: string } }) => {
    setDraft((d) => ({ ...d, [key]: e.target.value }));
    setSaved(false);
  };

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    const parsed = settingsPatchSchema.safeParse(fromDraft(draft));
    if (!parsed.success) {
      setErrors(byField(parsed.error.issues.map((i) => ({ field: String(i.path[0] ?? ""), message: i.message }))));
      return;
    }
    setErrors({});
    update.mutate(parsed.data, {
      onSuccess: () => setSaved(true),
      onError: (err) => setErrors(serverFieldErrors(err) ?? {}),
    });
  }

  // A refusal the fields cannot show (none of its details names one) stays above the button.
  const serverError = update.error instanceof ApiRequestError && !serverFieldErrors(update.error) ? update.error : null;
  return (
    <Card className="max-w-2xl">
      <form onSubmit={onSubmit} className="space-y-5" noValidate>
        <div className="grid grid-cols-1 gap-5 sm:grid-cols-2">
          <Field
            id="notReadyThresholdSeconds"
            label={SETTING_LABELS.notReadyThresholdSeconds}
            type="number"
            min={10}
            value={draft.notReadyThresholdSeconds}
            onChange={set("notReadyThresholdSeconds")}
            hint="A cluster without a heartbeat for this long turns NotReady."
            error={errors.notReadyThresholdSeconds}
          />
          <Field
            id="heartbeatIntervalSeconds"
            label={SETTING_LABELS.heartbeatIntervalSeconds}
            type="number"
            min={1}
            value={draft.heartbeatIntervalSeconds}
            onChange={set("heartbeatIntervalSeconds")}
            hint="Told to agents in every answer; must be below the threshold."
            error={errors.heartbeatIntervalSeconds}
          />
          <Field
            id="certificateValidityDays"
            label={SETTING_LABELS.certificateValidityDays}
            type="number"
            min={1}
            value={draft.certificateValidityDays}
            onChange={set("certificateValidityDays")}
            hint="For newly issued agent certificates."
            error={errors.certificateValidityDays}
          />
          <Field
            id="certificateRenewalGraceDays"
            label={SETTING_LABELS.certificateRenewalGraceDays}
            type="number"
            min={0}
            value={draft.certificateRenewalGraceDays}
            onChange={set("certificateRenewalGraceDays")}
            hint="An agent whose certificate expired less than this ago may still renew it (rotate only)."
            error={errors.certificateRenewalGraceDays}
          />
          <Field
            id="disconnectTimeoutSeconds"
            label={SETTING_LABELS.disconnectTimeoutSeconds}
            type="number"
            min={5}
            value={draft.disconnectTimeoutSeconds}
            onChange={set("disconnectTimeoutSeconds")}
            hint="How long an agent has to acknowledge disconnect before removal may be forced."
            error={errors.disconnectTimeoutSeconds}
          />
          <Field
            id="flappingThresholdPerHour"
            label={SETTING_LABELS.flappingThresholdPerHour}
            type="number"
            min={1}
            value={draft.flappingThresholdPerHour}
            onChange={set("flappingThresholdPerHour")}
            hint="A cluster whose status changes more often than this in an hour is flapping."
            error={errors.flappingThresholdPerHour}
          />
          <Field
            id="provisioningThresholdMinutes"
            label={SETTING_LABELS.provisioningThresholdMinutes}
            type="number"
            min={1}
            value={draft.provisioningThresholdMinutes}
            onChange={set("provisioningThresholdMinutes")}
            hint={`A pre-created cluster still provisioning after this long needs attention. The objective is under ${PROVISIONING_OBJECTIVE_MINUTES} minutes.`}
            error={errors.provisioningThresholdMinutes}
          />
          <Field
            id="deniedKeyCooldownHours"
            label={SETTING_LABELS.deniedKeyCooldownHours}
            type="number"
            min={1}
            value={draft.deniedKeyCooldownHours}
            onChange={set("deniedKeyCooldownHours")}
            hint="A key whose registration was denied is refused this long when it asks for the same name again, with any token."
            error={errors.deniedKeyCooldownHours}
          />
          <Field
            id="requiredLabels"
            label={SETTING_LABELS.requiredLabels}
            value={draft.requiredLabels}
            onChange={set("requiredLabels")}
            hint={
              <>
                Comma-separated label keys every cluster must carry.{" "}
                <RequiredLabelsPreview current={current.requiredLabels} typed={typedLabels} />
              </>
            }
            error={errors.requiredLabels}
          />
          <div className="sm:col-span-2">
            <Field
              id="clusterLinkTemplate"
              label={SETTING_LABELS.clusterLinkTemplate}
              type="url"
              value={draft.clusterLinkTemplate}
              onChange={set("clusterLinkTemplate")}
              placeholder="https://headlamp.example.com/c/{name}"
              hint="Each cluster's page links here (“Open in …”). Placeholders: {name}, {id}, {label:<key>}, URL-encoded, in the path, query or fragment only: the scheme and host are fixed. Empty: no link."
              error={errors.clusterLinkTemplate}
            />
          </div>
          <div className="sm:col-span-2">
            <Field
              id="kubeContextTemplate"
              label={SETTING_LABELS.kubeContextTemplate}
              value={draft.kubeContextTemplate}
              onChange={set("kubeContextTemplate")}
              placeholder="gke_my-project_europe-west1_{name}"
              hint="The kubectl context each cluster's commands name with --context. Placeholders: {name}, {id}, {label:<key>}. Empty: commands run in the current context."
              error={errors.kubeContextTemplate}
            />
          </div>
        </div>
        <fieldset className="space-y-3">
          <legend className="text-sm font-semibold">Wide bulk actions</legend>
          <p className="text-sm text-slate-500 dark:text-slate-400">
            A bulk drain or pool retirement over the whole fleet, or over any production cluster, needs an admin who types what it
            does.
          </p>
          <div className="grid grid-cols-1 gap-5 sm:grid-cols-2">
            <Field
              id="productionSelector"
              label={SETTING_LABELS.productionSelector}
              value={draft.productionSelector}
              onChange={set("productionSelector")}
              placeholder="env in (prod,production)"
              hint="A label selector. Empty: no cluster counts as production."
              error={errors.productionSelector}
            />
            <Field
              id="drainStartsPerMinute"
              label={SETTING_LABELS.drainStartsPerMinute}
              type="number"
              min={1}
              value={draft.drainStartsPerMinute}
              onChange={set("drainStartsPerMinute")}
              hint="A bulk drain starts this many clusters at once, then this many a minute; the rest wait in the queue."
              error={errors.drainStartsPerMinute}
            />
          </div>
        </fieldset>
        <fieldset className="space-y-3">
          <legend className="text-sm font-semibold">Retention</legend>
          <p className="text-sm text-slate-500 dark:text-slate-400">
            Older rows are deleted every minute. Audit entries are first appended to the archive in the data directory.
          </p>
          <div className="grid grid-cols-1 gap-5 sm:grid-cols-2">
            <Field
              id="heartbeatHistoryRetentionDays"
              label={SETTING_LABELS.heartbeatHistoryRetentionDays}
              type="number"
              min={1}
              value={draft.heartbeatHistoryRetentionDays}
              onChange={set("heartbeatHistoryRetentionDays")}
              hint="Heartbeats per minute and fleet status counts behind the charts (up to 7 days are shown)."
              error={errors.heartbeatHistoryRetentionDays}
            />
            <Field
              id="statusEventRetentionDays"
              label={SETTING_LABELS.statusEventRetentionDays}
              type="number"
              min={1}
              value={draft.statusEventRetentionDays}
              onChange={set("statusEventRetentionDays")}
              hint="Status changes and lifecycle milestones in each cluster's history."
              error={errors.statusEventRetentionDays}
            />
            <Field
              id="registrationAttemptRetentionDays"
              label={SETTING_LABELS.registrationAttemptRetentionDays}
              type="number"
              min={1}
              value={draft.registrationAttemptRetentionDays}
              onChange={set("registrationAttemptRetentionDays")}
              hint="The attempts log and the registration success rate (at most 100,000 are kept)."
              error={errors.registrationAttemptRetentionDays}
            />
            <Field
              id="auditLogRetentionDays"
              label={SETTING_LABELS.auditLogRetentionDays}
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
        <SaveActions pending={update.isPending} label="Save settings" saved={saved} />
      </form>
    </Card>
  );
}
