"use client";

import { useCallback, useMemo, useState } from "react";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { auditExportUrl, useAudit, type AuditEntry } from "@/lib/client/audit";
import { auditFilterFromSearchParams, auditFilterToSearchParams, type AuditFilter } from "@/lib/contracts/audit";
import { AuditDetailsPanel } from "@/components/audit/audit-details-panel";
import { AuditFiltersForm } from "@/components/audit/audit-filters-form";
import { AuditTable } from "@/components/audit/audit-table";
import { Button, buttonClass } from "@/components/ui/button";
import { TableSkeleton } from "@/components/ui/skeleton";
import { EmptyState, ErrorState } from "@/components/ui/states";

/** The audit log: filters in the URL (a link reproduces the view), paging, CSV export, details. */
export function AuditView() {
  const router = useRouter();
  const pathname = usePathname();
  const search = useSearchParams();
  const qs = search.toString();
  const filters = useMemo(() => auditFilterFromSearchParams(new URLSearchParams(qs)), [qs]);
  // Cursors of the pages before this one, for "Newer"; a new filter starts on the first page.
  const [paging, setPaging] = useState<{ qs: string; cursors: string[] }>({ qs, cursors: [] });
  const cursors = paging.qs === qs ? paging.cursors : [];
  const query = useAudit(filters, cursors.at(-1));
  const [open, setOpen] = useState<AuditEntry | null>(null);

  const apply = useCallback(
    (next: AuditFilter) => {
      const nextQs = auditFilterToSearchParams(next).toString();
      router.replace(nextQs ? `${pathname}?${nextQs}` : pathname, { scroll: false });
    },
    [router, pathname],
  );
  const filtered = Object.keys(filters).length > 0;

  return (
    <div className="space-y-4">
      {/* Remounted when the URL's filters change (a link, Back), so it shows them. */}
      <AuditFiltersForm key={qs} filters={filters} onApply={apply} />

      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="text-sm text-slate-600 dark:text-slate-400">
          {filtered ? "Entries matching these filters, newest first." : "Every entry, newest first."}
        </p>
        <a href={auditExportUrl(filters)} download className={buttonClass("secondary")} data-testid="audit-export">
          Export CSV
        </a>
      </div>

      {query.isPending ? (
        <TableSkeleton rows={10} label="Loading the audit log" />
      ) : query.isError ? (
        <ErrorState message={query.error.message} onRetry={() => void query.refetch()} />
      ) : query.data.items.length === 0 ? (
        <EmptyState title={filtered ? "No entries match these filters" : "Nothing has happened yet"}>
          Changes made by people, API keys and agents appear here as they happen.
        </EmptyState>
      ) : (
        <AuditTable entries={query.data.items} onOpen={setOpen} />
      )}

      <nav aria-label="Audit log pages" className="flex items-center justify-end gap-2">
        <Button
          variant="secondary"
          disabled={cursors.length === 0}
          onClick={() => setPaging({ qs, cursors: cursors.slice(0, -1) })}
        >
          Newer
        </Button>
        <Button
          variant="secondary"
          disabled={!query.data?.nextCursor}
          onClick={() => query.data?.nextCursor && setPaging({ qs, cursors: [...cursors, query.data.nextCursor] })}
        >
          Older
        </Button>
      </nav>

      {open && <AuditDetailsPanel entry={open} onClose={() => setOpen(null)} />}
    </div>
  );
}
