"use client";

import { useState, type FormEvent } from "react";
import {
  createBody,
  draftOf,
  emptyDraft,
  serverFieldErrors,
  updatePatch,
  type SourceDraft,
  type SourceErrors,
} from "./source-form";
import { useCreateCapiSource, useUpdateCapiSource, type CapiSourceView } from "@/lib/client/cluster-api";
import { OPT_IN_VALUE } from "@/lib/domain/cluster-api";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { CheckboxField, Field } from "@/components/ui/field";
import { FieldError, rowInputClass } from "@/components/ui/field-error";
import { FormActions } from "@/components/ui/form-actions";
import { textareaClass } from "@/components/ui/reason-dialog";

const muted = "text-xs text-slate-500 dark:text-slate-400";

/**
 * Adds a management cluster, or with `source` changes one. The kubeconfig is write-only: sent once,
 * stored sealed, never shown again; an edit leaves it as it is unless one is pasted to replace it.
 * The server's field errors (a refused kubeconfig, a malformed label) are shown under their fields.
 */
export function CapiSourceDialog({
  source,
  kekConfigured,
  onClose,
  onSaved,
}: {
  source?: CapiSourceView;
  kekConfigured: boolean;
  onClose: () => void;
  onSaved: (saved: CapiSourceView, created: boolean) => void;
}) {
  const create = useCreateCapiSource();
  const update = useUpdateCapiSource();
  const mutation = source ? update : create;
  const [draft, setDraft] = useState<SourceDraft>(() => (source ? draftOf(source) : emptyDraft()));
  const [errors, setErrors] = useState<SourceErrors>({});

  const set = <K extends keyof SourceDraft>(key: K, value: SourceDraft[K]) => {
    setDraft((d) => ({ ...d, [key]: value }));
    const field = key === "mappings" ? "labelMappings" : key;
    setErrors((e) => ({ ...e, [field]: undefined }));
  };
  const setMapping = (i: number, side: "from" | "to", value: string) =>
    set(
      "mappings",
      draft.mappings.map((m, j) => (j === i ? { ...m, [side]: value } : m)),
    );

  function submit(e: FormEvent) {
    e.preventDefault();
    const onError = (err: unknown) => setErrors(serverFieldErrors(err));
    if (!source) {
      const { body, errors: found } = createBody(draft);
      setErrors(found);
      if (body) create.mutate(body, { onSuccess: (saved) => onSaved(saved, true), onError });
      return;
    }
    const { patch, errors: found } = updatePatch(source, draft);
    setErrors(found);
    if (!patch) return;
    if (Object.keys(patch).length === 0) onClose();
    else update.mutate({ id: source.id, patch }, { onSuccess: (saved) => onSaved(saved, false), onError });
  }

  const placed = Object.keys(serverFieldErrors(mutation.error)).length > 0;
  return (
    <Dialog
      title={source ? `Edit the source ${source.name}` : "Add a management cluster"}
      description="The fleet watches its Cluster API Clusters and imports those that opt in: each appears as Provisioning, and joins by itself once its control plane answers."
      onClose={onClose}
    >
      <form onSubmit={submit} noValidate className="space-y-4" aria-label={source ? "Edit source" : "Add source"}>
        {source ? (
          <p className="text-sm">
            <span className="font-medium">Name</span> <span className="font-mono">{source.name}</span>{" "}
            <span className={muted}>(fixed: it prefixes its clusters&apos; fleet names)</span>
          </p>
        ) : (
          <Field
            id="capi-source-name"
            label="Name"
            value={draft.name}
            autoFocus
            autoComplete="off"
            spellCheck={false}
            placeholder="mgmt-eu"
            onChange={(e) => set("name", e.target.value)}
            hint="A DNS label of at most 20 characters. Imported clusters are named <name>-<namespace>-<cluster>."
            error={errors.name}
          />
        )}
        <KubeconfigField
          replacing={!!source}
          kekConfigured={kekConfigured}
          value={draft.kubeconfig}
          error={errors.kubeconfig}
          onChange={(v) => set("kubeconfig", v)}
        />
        <CheckboxField
          id="capi-source-private"
          label="Allow private addresses"
          checked={draft.allowPrivateTargets}
          onCheckedChange={(on) => {
            set("allowPrivateTargets", on);
            // A refusal of the kubeconfig's address may no longer hold.
            setErrors((x) => ({ ...x, kubeconfig: undefined }));
          }}
          hint="Management clusters and the workload clusters they create usually live on private networks (10/8, 172.16/12, 192.168/16, fc00::/7, loopback): turn this on to reach them there. Link-local and cloud metadata addresses are always refused."
        />
        <Field
          id="capi-source-namespaces"
          label="Namespaces"
          value={draft.namespaces}
          autoComplete="off"
          spellCheck={false}
          placeholder="all namespaces"
          onChange={(e) => set("namespaces", e.target.value)}
          hint="Comma-separated. Empty: all namespaces (the credentials must then read Clusters cluster-wide)."
          error={errors.namespaces}
        />
        <Field
          id="capi-source-opt-in"
          label="Opt-in label"
          value={draft.optInLabel}
          autoComplete="off"
          spellCheck={false}
          onChange={(e) => set("optInLabel", e.target.value)}
          hint={`A CAPI Cluster is imported when it, or its Namespace, carries this label with the value "${OPT_IN_VALUE}".`}
          error={errors.optInLabel}
        />
        <fieldset
          className="space-y-1.5"
          aria-describedby={`capi-source-mappings-hint${errors.labelMappings ? " capi-source-mappings-error" : ""}`}
        >
          <legend className="text-sm font-medium">Label mappings</legend>
          <p id="capi-source-mappings-hint" className={muted}>
            The value of a CAPI Cluster&apos;s label becomes the value of a fleet label (checked against the fleet&apos;s required
            labels before anything is imported).
          </p>
          {draft.mappings.length > 0 && (
            <ul className="space-y-1.5">
              {draft.mappings.map((m, i) => (
                <li key={i} className="flex items-center gap-1.5">
                  <input
                    aria-label={`Mapping ${i + 1}: CAPI label`}
                    value={m.from}
                    placeholder="cluster.x-k8s.io/environment"
                    spellCheck={false}
                    onChange={(e) => setMapping(i, "from", e.target.value)}
                    className={`${rowInputClass} min-w-0 flex-1 font-mono text-xs`}
                  />
                  <span aria-hidden className="text-slate-500">
                    →
                  </span>
                  <input
                    aria-label={`Mapping ${i + 1}: fleet label`}
                    value={m.to}
                    placeholder="env"
                    spellCheck={false}
                    onChange={(e) => setMapping(i, "to", e.target.value)}
                    className={`${rowInputClass} min-w-0 flex-1 font-mono text-xs`}
                  />
                  <Button
                    type="button"
                    variant="ghost"
                    className="h-8 px-2"
                    onClick={() =>
                      set(
                        "mappings",
                        draft.mappings.filter((_, j) => j !== i),
                      )
                    }
                  >
                    Remove<span className="sr-only"> mapping {i + 1}</span>
                  </Button>
                </li>
              ))}
            </ul>
          )}
          <Button
            type="button"
            variant="secondary"
            className="h-8"
            onClick={() => set("mappings", [...draft.mappings, { from: "", to: "" }])}
          >
            Add a mapping
          </Button>
          <FieldError id="capi-source-mappings-error" message={errors.labelMappings} />
        </fieldset>
        <div className="space-y-1.5">
          <label htmlFor="capi-source-fixed-labels" className="block text-sm font-medium">
            Fixed labels
          </label>
          <textarea
            id="capi-source-fixed-labels"
            rows={3}
            value={draft.fixedLabels}
            placeholder={"env=prod\nregion=eu-west-1"}
            spellCheck={false}
            onChange={(e) => set("fixedLabels", e.target.value)}
            aria-invalid={errors.fixedLabels ? true : undefined}
            aria-describedby={`capi-source-fixed-labels-hint${errors.fixedLabels ? " capi-source-fixed-labels-error" : ""}`}
            className={`${textareaClass} font-mono text-xs`}
          />
          <p id="capi-source-fixed-labels-hint" className={muted}>
            key=value, one per line: every cluster imported from here carries them (a mapping wins for the same key).
          </p>
          <FieldError id="capi-source-fixed-labels-error" message={errors.fixedLabels} />
        </div>
        <CheckboxField
          id="capi-source-approval"
          label="Registrations wait for approval"
          checked={draft.requireApproval}
          onCheckedChange={(on) => set("requireApproval", on)}
          hint="Each imported cluster's agent registers into the approval queue instead of joining at once."
        />
        <fieldset className="space-y-3">
          <legend className="text-sm font-medium">Agent manifest</legend>
          <p className={muted}>What the fleet applies to each workload cluster; empty fields take the fleet&apos;s defaults.</p>
          <Field
            id="capi-source-agent-image"
            label="Agent image"
            value={draft.agentImage}
            autoComplete="off"
            spellCheck={false}
            placeholder="registry.example.com/fleet/agent:1.4.0"
            onChange={(e) => set("agentImage", e.target.value)}
            error={errors.agentImage}
          />
          <Field
            id="capi-source-https-proxy"
            label="HTTPS proxy"
            value={draft.httpsProxy}
            autoComplete="off"
            spellCheck={false}
            placeholder="http://proxy.internal:3128"
            onChange={(e) => set("httpsProxy", e.target.value)}
            error={errors.httpsProxy}
          />
          <Field
            id="capi-source-no-proxy"
            label="NO_PROXY"
            value={draft.noProxy}
            autoComplete="off"
            spellCheck={false}
            placeholder=".cluster.local,10.0.0.0/8"
            onChange={(e) => set("noProxy", e.target.value)}
            error={errors.noProxy}
          />
        </fieldset>
        <FormActions
          error={placed ? null : mutation.error}
          onCancel={onClose}
          pending={mutation.isPending}
          disabled={!kekConfigured && (!source || !!draft.kubeconfig.trim())}
          label={source ? "Save changes" : "Add management cluster"}
          pendingLabel={source ? "Saving…" : "Adding…"}
        />
      </form>
    </Dialog>
  );
}

/** The write-only kubeconfig: required to add a source, optional on an edit (it replaces the stored one). */
function KubeconfigField({
  replacing,
  kekConfigured,
  value,
  error,
  onChange,
}: {
  replacing: boolean;
  kekConfigured: boolean;
  value: string;
  error?: string;
  onChange: (value: string) => void;
}) {
  const id = "capi-source-kubeconfig";
  return (
    <div className="space-y-1.5">
      <label htmlFor={id} className="block text-sm font-medium">
        {replacing ? "Replace the kubeconfig (optional)" : "Kubeconfig"}
      </label>
      <textarea
        id={id}
        rows={6}
        value={value}
        disabled={!kekConfigured}
        onChange={(e) => onChange(e.target.value)}
        placeholder={replacing ? "Leave empty to keep the stored one" : "apiVersion: v1\nkind: Config\n…"}
        aria-invalid={error ? true : undefined}
        aria-describedby={`${id}-hint${error ? ` ${id}-error` : ""}`}
        spellCheck={false}
        autoComplete="off"
        className={`${textareaClass} font-mono text-xs`}
      />
      <p id={`${id}-hint`} className={muted}>
        {kekConfigured
          ? "Its current context, with inline credentials only (token, client certificate and key data, CA data): no exec, auth-provider, file paths or insecure-skip-tls-verify. It needs to list and watch clusters.cluster.x-k8s.io and read the <cluster>-kubeconfig Secrets. Stored sealed, never shown again."
          : "This server has no key-encryption key (FLEET_CA_KEK_FILE), so a kubeconfig cannot be stored."}
      </p>
      <FieldError id={`${id}-error`} message={error} />
    </div>
  );
}
