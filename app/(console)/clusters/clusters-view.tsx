"use client";

import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useMemo, useState, useSyncExternalStore } from "react";
import {
  LIST_SORTS,
  PAGE_SIZE,
  activeFilterCount,
  filterOf,
  filtersFromSearchParams,
  filtersToSearchParams,
  isFiltered,
  NO_FILTERS,
  nextSort,
  type ClusterFilters,
  type ListSort,
} from "@/lib/client/cluster-filters";
import { useClusters, useFleet, useGroups, type PreCreated } from "@/lib/client/clusters";
import { useLiveEvents } from "@/lib/client/live-events";
import { ClusterFiltersBar } from "@/components/clusters/cluster-filters-bar";
import { ClustersListSkeleton } from "@/components/clusters/clusters-list-skeleton";
import { ClusterCards, ClustersTable } from "@/components/clusters/clusters-table";
import { LiveIndicator } from "@/components/ui/live-indicator";
import { ListPager } from "@/components/clusters/list-pager";
import { ListTools, SavedViews } from "@/components/clusters/list-tools";
import { BulkActionsBar } from "@/components/clusters/bulk-actions-bar";
import { BulkDrainDialog } from "@/components/clusters/bulk-drain-dialog";
import { BulkRetirePoolDialog } from "@/components/clusters/bulk-retire-pool-dialog";
import { BulkLabelsDialog } from "@/components/clusters/bulk-labels-dialog";
import { DEFAULT_COLUMNS } from "@/components/clusters/cluster-columns";
import { useColumnChoice, type Selection } from "@/lib/client/cluster-bulk";
import { PreCreateClusterDialog } from "@/components/clusters/pre-create-cluster-dialog";
import { ThresholdNote } from "@/components/clusters/threshold-note";
import { Button } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/page-header";
import { EmptyState, ErrorState } from "@/components/ui/states";
import { MintedTokenPanel } from "@/components/tokens/minted-token-panel";

/** Tailwind's `sm` breakpoint: below it the list is cards and the filters fold away. */
const PHONE_QUERY = "(max-width: 639.98px)";

function subscribePhone(onChange: () => void) {
  const query = window.matchMedia(PHONE_QUERY);
  query.addEventListener("change", onChange);
  return () => query.removeEventListener("change", onChange);
}

/** Whether the window is phone-narrow; the server renders the desktop layout. */
function useIsPhone(): boolean {
  return useSyncExternalStore(
    subscribePhone,
    () => window.matchMedia(PHONE_QUERY).matches,
    () => false,
  );
}

const SORT_LABELS: Record<ListSort, string> = {
  name: "Name",
  lastHeartbeatAt: "Last seen",
  registeredAt: "Registered",
  status: "Status",
  notReadySince: "NotReady since",
  agentVersion: "Agent version",
  kubernetesVersion: "Kubernetes version",
};

const ORDER_WORDS = {
  text: { asc: "A–Z", desc: "Z–A" },
  time: { asc: "oldest first", desc: "newest first" },
} as const;

/**
 * `canMint`, `isAdmin`: the fleet role's (pre-creating a cluster is the fleet's); `fleetRole`:
 * whether the person has one at all (the group filter reads the fleet's groups); `operatingTeams`:
 * the teams they operate in, whose clusters they may act on in bulk and whose views they save;
 * `canRollout`: whether the new-rollout page opens for them.
 */
export function ClustersView({
  canMint,
  isAdmin,
  fleetRole,
  operatingTeams,
  canRollout,
}: {
  canMint: boolean;
  isAdmin: boolean;
  fleetRole: boolean;
  operatingTeams: string[];
  canRollout: boolean;
}) {
  const router = useRouter();
  const pathname = usePathname();
  const search = useSearchParams();
  const filters = useMemo(() => filtersFromSearchParams(new URLSearchParams(search.toString())), [search]);
  // Cursors of the pages before this one, for "Previous". Not in the URL: a shared link opens
  // on its page, and "Previous" from there goes back to the first page.
  const [before, setBefore] = useState<(string | undefined)[]>([]);
  const live = useLiveEvents();
  const list = useClusters(filters);
  const groups = useGroups({ enabled: fleetRole });
  // Bulk actions and saved views: an operator of the fleet or of a team (the API bounds a team's to its clusters).
  const canAct = canMint || operatingTeams.length > 0;
  const fleet = useFleet();
  // The pre-created cluster's claim token lives here, in component state, only until its panel is closed.
  const [columns, setColumns] = useColumnChoice(DEFAULT_COLUMNS);
  const phone = useIsPhone();
  // On a phone the filters fold away so the first cluster is on the first screen.
  const [filtersOpen, setFiltersOpen] = useState(false);
  const activeFilters = activeFilterCount(filters);
  // The selection belongs to one filter: a new filter starts a new selection.
  const filterKey = JSON.stringify(filterOf(filters));
  const [picked, setPicked] = useState<{ filterKey: string; ids: Set<string>; matching: boolean }>({
    filterKey,
    ids: new Set(),
    matching: false,
  });
  if (picked.filterKey !== filterKey) setPicked({ filterKey, ids: new Set(), matching: false });
  // The selection is copied when a dialog opens, so what the dialog acts on cannot shift under it.
  const [bulkDialog, setBulkDialog] = useState<{ kind: "labels" | "drain" | "retire-pool"; selection: Selection } | null>(null);
  const [preCreate, setPreCreate] = useState<{ kind: "closed" } | { kind: "dialog" } | { kind: "created"; created: PreCreated }>({
    kind: "closed",
  });

  const go = useCallback(
    (next: ClusterFilters) => {
      const qs = filtersToSearchParams(next).toString();
      router.replace(qs ? `${pathname}?${qs}` : pathname, { scroll: false });
    },
    [router, pathname],
  );
  const changeFilters = useCallback(
    (patch: Partial<ClusterFilters>) => {
      setBefore([]);
      go({ ...filters, ...patch, cursor: undefined });
    },
    [filters, go],
  );
  const sortBy = (column: ListSort) => changeFilters(nextSort(filters, column));
  const filtered = isFiltered(filters);
  const data = list.data;
  const pageIndex = filters.cursor && before.length === 0 ? null : before.length;
  const pageSize = filters.pageSize ?? PAGE_SIZE;
  const selection: Selection | null =
    picked.matching && data
      ? { kind: "matching", filters, count: data.total, capped: data.totalCapped }
      : picked.ids.size
        ? { kind: "ids", ids: [...picked.ids] }
        : null;
  const pageComplete =
    !!data && data.items.length > 0 && data.items.every((c) => picked.ids.has(c.id)) && data.total > data.items.length;
  const rowSelection = canAct
    ? {
        selected: picked.matching && data ? new Set(data.items.map((c) => c.id)) : picked.ids,
        onToggle: (id: string) =>
          setPicked((p) => {
            const ids = new Set(p.matching && data ? data.items.map((c) => c.id) : p.ids);
            if (ids.has(id)) ids.delete(id);
            else ids.add(id);
            return { ...p, ids, matching: false };
          }),
        onTogglePage: (select: boolean) =>
          setPicked((p) => {
            const ids = new Set(p.matching ? [] : p.ids);
            for (const c of data?.items ?? []) {
              if (select) ids.add(c.id);
              else ids.delete(c.id);
            }
            return { ...p, ids, matching: false };
          }),
      }
    : undefined;

  return (
    <>
      <PageHeader
        title="Clusters"
        description={data ? <ThresholdNote seconds={data.notReadyThresholdSeconds} /> : "Every cluster registered in the fleet."}
        actions={
          <div className="flex items-center gap-3">
            <LiveIndicator state={live} />
            {/* Hidden from viewers as a courtesy; the API refuses them regardless. */}
            {canMint && (
              <Button id="pre-create-button" variant="secondary" onClick={() => setPreCreate({ kind: "dialog" })}>
                Pre-create…
              </Button>
            )}
          </div>
        }
      />
      {preCreate.kind === "dialog" && (
        <PreCreateClusterDialog
          requiredLabels={fleet.data?.requiredLabels ?? []}
          onClose={() => setPreCreate({ kind: "closed" })}
          onCreated={(created) => setPreCreate({ kind: "created", created })}
        />
      )}
      {preCreate.kind === "created" && (
        <div className="mb-4 space-y-2">
          <p role="status" className="text-sm">
            <Link href={`/clusters/${preCreate.created.id}`} className="font-medium text-sky-700 underline dark:text-sky-400">
              {preCreate.created.name}
            </Link>{" "}
            is pre-created and waits for its agent; only the token below claims it.
          </p>
          <MintedTokenPanel
            minted={preCreate.created.registrationToken}
            boundCluster={preCreate.created.name}
            onClose={() => {
              setPreCreate({ kind: "closed" });
              requestAnimationFrame(() => document.getElementById("pre-create-button")?.focus());
            }}
          />
        </div>
      )}
      {bulkDialog?.kind === "labels" && <BulkLabelsDialog selection={bulkDialog.selection} onClose={() => setBulkDialog(null)} />}
      {bulkDialog?.kind === "drain" && (
        <BulkDrainDialog selection={bulkDialog.selection} isAdmin={isAdmin} onClose={() => setBulkDialog(null)} />
      )}
      {bulkDialog?.kind === "retire-pool" && (
        <BulkRetirePoolDialog selection={bulkDialog.selection} isAdmin={isAdmin} onClose={() => setBulkDialog(null)} />
      )}
      <div className="space-y-4">
        <button
          type="button"
          className="inline-flex h-9 items-center gap-2 rounded-md border border-slate-300 bg-white px-3 text-sm font-medium hover:bg-slate-100 sm:hidden dark:border-slate-700 dark:bg-slate-900 dark:hover:bg-slate-800"
          aria-expanded={filtersOpen}
          aria-controls="cluster-list-filters"
          onClick={() => setFiltersOpen((o) => !o)}
        >
          Filters
          {activeFilters > 0 && (
            <span className="rounded-full bg-sky-600 px-1.5 text-xs font-semibold text-white" data-testid="active-filter-count">
              {activeFilters}
              <span className="sr-only"> active</span>
            </span>
          )}
          <span aria-hidden className="text-xs">
            {filtersOpen ? "▲" : "▼"}
          </span>
        </button>
        <div id="cluster-list-filters" className={`space-y-4 ${filtersOpen ? "" : "max-sm:hidden"}`}>
          <SavedViews filters={filters} fleet={canMint} teams={operatingTeams} />
          <ClusterFiltersBar
            filters={filters}
            groups={fleetRole ? (groups.data?.items ?? (groups.isError ? [] : null)) : undefined}
            onChange={changeFilters}
          />
          {phone && (
            <label className="flex items-center gap-2 text-sm">
              <span className="text-slate-600 dark:text-slate-400">Sort by</span>
              <select
                className="h-9 rounded-md border border-slate-300 bg-white px-2 text-sm dark:border-slate-700 dark:bg-slate-900"
                value={`${filters.sort}:${filters.order}`}
                onChange={(e) => {
                  const [sort, order] = e.target.value.split(":") as [ListSort, "asc" | "desc"];
                  changeFilters({ sort, order });
                }}
              >
                {LIST_SORTS.flatMap((sort) =>
                  (["asc", "desc"] as const).map((order) => (
                    <option key={`${sort}:${order}`} value={`${sort}:${order}`}>
                      {SORT_LABELS[sort]} ({ORDER_WORDS[sort === "name" || sort === "status" ? "text" : "time"][order]})
                    </option>
                  )),
                )}
              </select>
            </label>
          )}
        </div>

        <div className="flex min-h-9 flex-wrap items-center justify-between gap-4 text-sm">
          <p className="text-slate-600 dark:text-slate-400" aria-live="polite">
            {data ? (
              <>
                {data.totalCapped && "More than "}
                <span className="font-semibold tabular-nums text-slate-900 dark:text-slate-100" data-testid="clusters-total">
                  {data.total.toLocaleString("en-US")}
                </span>{" "}
                {data.total === 1 && !data.totalCapped ? "cluster" : "clusters"}
                {filtered ? " match" : ""}
              </>
            ) : (
              " "
            )}
          </p>
          <div className="flex flex-wrap items-center gap-3">
            <ListTools
              filters={filters}
              onPageSize={(n) => changeFilters({ pageSize: n === PAGE_SIZE ? undefined : n })}
              columns={columns}
              onColumns={setColumns}
            />
            {filtered && (
              <Button variant="ghost" onClick={() => changeFilters(NO_FILTERS)}>
                Clear filters
              </Button>
            )}
            {data && data.total > 0 && (
              <ListPager
                pageIndex={pageIndex}
                pageSize={pageSize}
                shown={data.items.length}
                total={data.total}
                totalCapped={data.totalCapped}
                hasPrevious={!!filters.cursor}
                hasNext={!!data.nextCursor}
                onPrevious={() => {
                  const previous = before[before.length - 1];
                  setBefore((b) => b.slice(0, -1));
                  go({ ...filters, cursor: previous });
                }}
                onNext={() => {
                  if (!data.nextCursor) return;
                  setBefore((b) => [...b, filters.cursor]);
                  go({ ...filters, cursor: data.nextCursor });
                }}
              />
            )}
          </div>
        </div>

        {selection && data && (
          <BulkActionsBar
            selection={selection}
            pageComplete={pageComplete}
            matching={{ count: data.total, capped: data.totalCapped }}
            onSelectMatching={() => setPicked((p) => ({ ...p, matching: true }))}
            onClear={() => setPicked({ filterKey, ids: new Set(), matching: false })}
            onEditLabels={() => setBulkDialog({ kind: "labels", selection })}
            onDrain={() => setBulkDialog({ kind: "drain", selection })}
            onRetirePool={() => setBulkDialog({ kind: "retire-pool", selection })}
            canRollout={canRollout}
          />
        )}

        {list.isPending ? (
          <ClustersListSkeleton />
        ) : list.isError ? (
          <ErrorState title="Could not load the clusters" message={list.error.message} onRetry={() => void list.refetch()} />
        ) : list.data.items.length === 0 ? (
          filtered ? (
            <EmptyState title="No clusters match these filters">
              Loosen the selector, pick another status or group, or clear the filters.
            </EmptyState>
          ) : (
            <EmptyState title="No clusters registered yet">
              Clusters appear here as soon as their agent registers with a token.{" "}
              {canMint ? (
                <Link href="/tokens" className="font-medium text-sky-700 underline dark:text-sky-400">
                  Mint a registration token
                </Link>
              ) : (
                "Ask an operator for a registration token."
              )}
            </EmptyState>
          )
        ) : phone ? (
          <ClusterCards items={list.data.items} busy={list.isPlaceholderData} selection={rowSelection} />
        ) : (
          <ClustersTable
            items={list.data.items}
            sort={filters.sort}
            order={filters.order}
            onSort={sortBy}
            busy={list.isPlaceholderData}
            requiredLabels={fleet.data?.requiredLabels}
            columns={columns}
            selection={rowSelection}
          />
        )}
      </div>
    </>
  );
}
