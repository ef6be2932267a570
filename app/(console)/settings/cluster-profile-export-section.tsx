"use client";

import { useState, type FormEvent } from "react";
import type { ExporterPatch, ExporterState } from "@/lib/contracts/cluster-profiles";
import { useClusterProfileExport, useUpdateClusterProfileExport } from "@/lib/client/cluster-profile-export";
import { PrivateTargetsSwitch } from "@/components/settings/private-targets-switch";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Field } from "@/components/ui/field";
import { InlineError } from "@/components/ui/inline-error";
import { textareaClass } from "@/components/ui/reason-dialog";
import { RelativeTime } from "@/components/ui/relative-time";
import { Skeleton } from "@/components/ui/skeleton";
import { ErrorState } from "@/components/ui/states";

/** The ClusterProfile exporter: on/off, the hub's namespace and kubeconfig, and how the last runs went. */
export function ClusterProfileExportSection() {
  const state = useClusterProfileExport();
  return (
    <Card title={<span id="cluster-profile-export">ClusterProfile export</span>}>
      {state.isPending ? (
        <Skeleton className="h-40" />
      ) : state.isError ? (
        <ErrorState
          title="Could not load the ClusterProfile export"
          message={state.error.message}
          onRetry={() => void state.refetch()}
        />
      ) : (
        <ExportForm state={state.data} />
      )}
    </Card>
  );
}

function ExportStatus({ state }: { state: ExporterState }) {
  const muted = "text-slate-600 dark:text-slate-400";
  if (!state.kubeconfig.set)
    return (
      <p className={`text-sm ${muted}`}>
        Not set up. Paste a kubeconfig for the hub cluster below and turn the export on: every cluster then appears there as a
        ClusterProfile (multicluster.x-k8s.io/v1alpha1) for Argo CD, MultiKueue or Headlamp to read.
      </p>
    );
  return (
    <div className="space-y-2 text-sm">
      <dl className="grid grid-cols-1 gap-x-6 gap-y-1 sm:grid-cols-[auto_1fr]">
        <dt className={muted}>Hub</dt>
        <dd className="font-mono text-xs break-all">{state.kubeconfig.server}</dd>
        <dt className={muted}>Export</dt>
        <dd>{state.enabled ? "On" : "Off"}</dd>
        <dt className={muted}>Last export</dt>
        <dd>
          <RelativeTime iso={state.lastExportAt} fallback="none yet" />
        </dd>
        <dt className={muted}>Profiles on the hub</dt>
        <dd>{state.exported.toLocaleString("en")}</dd>
      </dl>
      {state.lastError && (
        <div role="alert" className="rounded-md bg-rose-50 px-3 py-2 text-rose-700 dark:bg-rose-950/50 dark:text-rose-300">
          <p className="font-medium">
            The last export failed <RelativeTime iso={state.lastError.at} />
          </p>
          <p className="mt-1 break-words">{state.lastError.message}</p>
        </div>
      )}
    </div>
  );
}

function ExportForm({ state }: { state: ExporterState }) {
  const update = useUpdateClusterProfileExport();
  const [enabled, setEnabled] = useState(state.enabled);
  const [namespace, setNamespace] = useState(state.namespace);
  const [kubeconfig, setKubeconfig] = useState("");
  const [saved, setSaved] = useState(false);

  const save = (patch: ExporterPatch) => {
    setSaved(false);
    update.mutate(patch, {
      // The form starts again from what was stored (removing the kubeconfig also turns the export off).
      onSuccess: (stored) => {
        setEnabled(stored.enabled);
        setNamespace(stored.namespace);
        setKubeconfig("");
        setSaved(true);
      },
    });
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save({ enabled, namespace: namespace.trim(), ...(kubeconfig.trim() ? { kubeconfig } : {}) });
  };

  return (
    <form onSubmit={submit} className="space-y-4" aria-label="ClusterProfile export">
      <ExportStatus state={state} />
      <label className="flex items-center gap-2 text-sm font-medium">
        <input
          type="checkbox"
          className="size-4 accent-sky-600"
          checked={enabled}
          onChange={(e) => setEnabled(e.target.checked)}
        />
        Export the fleet as ClusterProfiles
      </label>
      <div className="max-w-sm">
        <Field
          id="cluster-profile-namespace"
          label="Namespace on the hub"
          value={namespace}
          onChange={(e) => setNamespace(e.target.value)}
          hint="Profiles are applied in this namespace; it must exist on the hub."
          autoComplete="off"
          spellCheck={false}
        />
      </div>
      <PrivateTargetsSwitch
        setting="hubAllowPrivateTargets"
        hint="Turn it on for a hub inside your network, before pasting its kubeconfig."
      />
      <div className="space-y-1.5">
        <label htmlFor="cluster-profile-kubeconfig" className="block text-sm font-medium">
          Hub kubeconfig
        </label>
        <textarea
          id="cluster-profile-kubeconfig"
          rows={6}
          value={kubeconfig}
          onChange={(e) => setKubeconfig(e.target.value)}
          placeholder={state.kubeconfig.set ? "Paste a kubeconfig to replace the stored one" : "apiVersion: v1\nkind: Config\n…"}
          aria-describedby="cluster-profile-kubeconfig-hint"
          spellCheck={false}
          autoComplete="off"
          className={`${textareaClass} font-mono text-xs`}
        />
        <p id="cluster-profile-kubeconfig-hint" className="text-xs text-slate-500 dark:text-slate-400">
          {state.kekConfigured
            ? "Its current context is used, with inline credentials only (token, client certificate and key data, CA data): no exec, auth-provider, file paths, insecure-skip-tls-verify or proxy-url. Stored sealed with the key-encryption key and never shown again."
            : "This server has no key-encryption key (FLEET_CA_KEK_FILE), so a kubeconfig cannot be stored."}
        </p>
      </div>
      {update.error && <InlineError error={update.error} />}
      <div className="flex flex-wrap items-center gap-3">
        <Button type="submit" disabled={update.isPending}>
          {update.isPending ? "Saving…" : "Save export settings"}
        </Button>
        {state.kubeconfig.set && (
          <Button type="button" variant="secondary" disabled={update.isPending} onClick={() => save({ kubeconfig: null })}>
            Remove kubeconfig
          </Button>
        )}
        {saved && (
          <p role="status" className="text-sm text-emerald-700 dark:text-emerald-400">
            Saved.
          </p>
        )}
      </div>
    </form>
  );
}
