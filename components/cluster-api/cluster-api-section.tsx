"use client";

import { useState } from "react";
import { useCapiClusters, useCapiSources, type CapiClusterFilters, type CapiSourceView } from "@/lib/client/cluster-api";
import { CAPI_STEPS, DEFAULT_OPT_IN_LABEL, OPT_IN_VALUE, type CapiStep } from "@/lib/domain/cluster-api";
import { Button } from "@/components/ui/button";
import { SelectField } from "@/components/ui/field";
import { TableSkeleton } from "@/components/ui/skeleton";
import { EmptyState, ErrorState } from "@/components/ui/states";
import { CapiClustersTable } from "./capi-clusters-table";
import { CapiSourceCard } from "./capi-source-card";
import { CapiSourceDialog } from "./capi-source-dialog";
import { CAPI_STEP_LOOK } from "./capi-step";
import { DeleteCapiSourceDialog } from "./delete-capi-source-dialog";
import { CapiSourcesSkeleton } from "./cluster-api-skeleton";

/** Who may do what here: admins edit sources and let an excluded cluster back in; operators retry a failed step. */
export type ClusterApiPermissions = { canEditSources: boolean; canRetry: boolean };

type Editing = { kind: "create" } | { kind: "edit"; source: CapiSourceView } | null;

/**
 * The Cluster API page: the management clusters the fleet imports from, then every CAPI Cluster
 * seen on them with its import step, both followed live. A person who may not add a source is
 * told why rather than shown a button that would be refused.
 */
export function ClusterApiSection({ permissions }: { permissions: ClusterApiPermissions }) {
  const sources = useCapiSources();
  const [editing, setEditing] = useState<Editing>(null);
  const [deleting, setDeleting] = useState<CapiSourceView | null>(null);
  const [filters, setFilters] = useState<CapiClusterFilters>({});
  const [notice, setNotice] = useState<string | null>(null);

  if (sources.isPending) return <CapiSourcesSkeleton />;
  if (sources.isError)
    return (
      <ErrorState
        title="Could not load the Cluster API sources"
        message={sources.error.message}
        onRetry={() => void sources.refetch()}
      />
    );
  const { items, kekConfigured } = sources.data;
  const addButton = permissions.canEditSources ? (
    <Button onClick={() => setEditing({ kind: "create" })} disabled={!kekConfigured}>
      Add a management cluster
    </Button>
  ) : null;

  return (
    <div className="space-y-8">
      {notice && (
        <p
          role="status"
          className="rounded-md bg-emerald-50 px-3 py-2 text-sm text-emerald-800 dark:bg-emerald-950/50 dark:text-emerald-300"
        >
          {notice}
        </p>
      )}
      {permissions.canEditSources && !kekConfigured && (
        <p
          role="alert"
          className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:bg-amber-950/50 dark:text-amber-200"
        >
          This server has no key-encryption key (FLEET_CA_KEK_FILE), and a source&apos;s kubeconfig is stored only sealed with it:
          set one and restart before adding a management cluster.
        </p>
      )}
      <section aria-labelledby="capi-sources-heading" className="space-y-4">
        <div className="flex flex-wrap items-end justify-between gap-4">
          <h2 id="capi-sources-heading" className="text-base font-semibold">
            Management clusters
          </h2>
          {items.length > 0 && addButton}
        </div>
        {items.length === 0 ? (
          <EmptyState title="No management clusters yet">
            <p>
              A source is a Cluster API management cluster the fleet watches. Every CAPI Cluster there that opts in (it or its
              Namespace labelled <code className="font-mono text-xs">{`${DEFAULT_OPT_IN_LABEL}=${OPT_IN_VALUE}`}</code>) appears
              in the fleet as Provisioning while it is created, joins by itself once its control plane answers, and leaves when
              Cluster API deletes it.
            </p>
            <div className="mt-4">
              {addButton ?? (
                <p data-testid="capi-add-refused">Only a fleet admin can add a management cluster: ask one to add it.</p>
              )}
            </div>
          </EmptyState>
        ) : (
          <div className="grid grid-cols-1 gap-4 xl:grid-cols-2">
            {items.map((s) => (
              <CapiSourceCard
                key={s.id}
                source={s}
                canEdit={permissions.canEditSources}
                onEdit={() => setEditing({ kind: "edit", source: s })}
                onDelete={() => setDeleting(s)}
                onShowStep={(step) => {
                  setFilters({ source: s.id, step });
                  requestAnimationFrame(() => document.getElementById("capi-clusters-heading")?.scrollIntoView());
                }}
              />
            ))}
          </div>
        )}
        {items.length > 0 && !permissions.canEditSources && (
          <p className="text-xs text-slate-600 dark:text-slate-400">Only a fleet admin can add, change or delete a source.</p>
        )}
      </section>
      {items.length > 0 && (
        <CapiClustersSection
          sources={items}
          filters={filters}
          onFilters={setFilters}
          permissions={permissions}
          onDone={setNotice}
        />
      )}
      {editing && (
        <CapiSourceDialog
          key={editing.kind === "edit" ? editing.source.id : "create"}
          source={editing.kind === "edit" ? editing.source : undefined}
          kekConfigured={kekConfigured}
          onClose={() => setEditing(null)}
          onSaved={(saved, created) => {
            setEditing(null);
            setNotice(
              created
                ? `Added ${saved.name}: its kubeconfig is stored sealed and its watch starts within seconds.`
                : `Saved ${saved.name}: its clusters are looked at again under the new settings.`,
            );
          }}
        />
      )}
      {deleting && (
        <DeleteCapiSourceDialog
          source={deleting}
          onClose={() => {
            // A filter on a deleted source would show nothing.
            if (filters.source === deleting.id) setFilters({});
            setDeleting(null);
          }}
        />
      )}
    </div>
  );
}

const ALL = "";

function CapiClustersSection({
  sources,
  filters,
  onFilters,
  permissions,
  onDone,
}: {
  sources: CapiSourceView[];
  filters: CapiClusterFilters;
  onFilters: (f: CapiClusterFilters) => void;
  permissions: ClusterApiPermissions;
  onDone: (message: string) => void;
}) {
  const clusters = useCapiClusters(filters);
  const filtered = !!(filters.source || filters.step);
  return (
    <section aria-labelledby="capi-clusters-heading" className="space-y-4">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h2 id="capi-clusters-heading" className="scroll-mt-4 text-base font-semibold">
            CAPI Clusters
          </h2>
          <p className="mt-0.5 text-sm text-slate-600 dark:text-slate-400" aria-live="polite">
            {clusters.data
              ? `${clusters.data.length.toLocaleString("en")} ${filtered ? "shown" : "seen"}, refreshed every few seconds`
              : "Loading…"}
          </p>
        </div>
        <div className="flex flex-wrap items-end gap-3">
          <div className="w-48">
            <SelectField
              id="capi-filter-source"
              label="Source"
              value={filters.source ?? ALL}
              options={[{ value: ALL, label: "All sources" }, ...sources.map((s) => ({ value: s.id, label: s.name }))]}
              onValueChange={(source) => onFilters({ ...filters, source: source || undefined })}
            />
          </div>
          <div className="w-48">
            <SelectField<string>
              id="capi-filter-step"
              label="Step"
              value={filters.step ?? ALL}
              options={[
                { value: ALL, label: "All steps" },
                ...CAPI_STEPS.map((s) => ({ value: s, label: CAPI_STEP_LOOK[s].label })),
              ]}
              onValueChange={(step) => onFilters({ ...filters, step: (step || undefined) as CapiStep | undefined })}
            />
          </div>
          {filtered && (
            <Button variant="ghost" onClick={() => onFilters({})}>
              Show all
            </Button>
          )}
        </div>
      </div>
      {clusters.isPending ? (
        <TableSkeleton rows={3} label="Loading CAPI Clusters" />
      ) : clusters.isError ? (
        <ErrorState
          title="Could not load the CAPI Clusters"
          message={clusters.error.message}
          onRetry={() => void clusters.refetch()}
        />
      ) : clusters.data.length === 0 ? (
        filtered ? (
          <EmptyState title="No CAPI Clusters match these filters" />
        ) : (
          <EmptyState title="No CAPI Clusters seen yet">
            Clusters appear here as the watch lists them, whether they opt in or not; label one (or its Namespace) with the
            source&apos;s opt-in label to import it.
          </EmptyState>
        )
      ) : (
        <CapiClustersTable
          clusters={clusters.data}
          actions={{ canRetry: permissions.canRetry, canClearMark: permissions.canEditSources, onDone }}
        />
      )}
    </section>
  );
}
