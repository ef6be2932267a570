"use client";

import type { AuditEntry } from "@/lib/client/audit";
import { RelativeTime } from "@/components/ui/relative-time";
import { TableHead } from "@/components/ui/table-head";
import { AuditTarget } from "./audit-target";
import { ScrollRegion } from "@/components/ui/scroll-region";

/** A short line of an entry's details for the row; the side panel shows them in full. */
function detailsPreview(details: Record<string, unknown>): string {
  const text = Object.entries(details)
    .map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(", ");
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/** Audit entries newest first; each row's Details button opens the entry in the side panel. */
export function AuditTable({ entries, onOpen }: { entries: AuditEntry[]; onOpen: (e: AuditEntry) => void }) {
  return (
    <ScrollRegion
      label="Audit log table"
      className="rounded-lg border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900"
    >
      <table className="w-full min-w-[44rem] text-left text-sm">
        <caption className="sr-only">Audit log entries, newest first</caption>
        <TableHead columns={["Time", "Actor", "Action", "Target", "Details"]} />
        <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
          {entries.map((e) => (
            <tr key={e.id} className="align-top" data-testid="audit-row">
              <td className="px-4 py-2.5 whitespace-nowrap text-slate-600 dark:text-slate-400">
                <RelativeTime iso={e.at} />
              </td>
              {/* A floor under the names: in a phone's narrow box the table gave them one letter a line. */}
              <td className="min-w-52 px-4 py-2.5 break-all">{e.actor}</td>
              <td className="px-4 py-2.5 font-mono text-xs">{e.action}</td>
              <td className="min-w-48 max-w-xs px-4 py-2.5">
                <AuditTarget entry={e} />
              </td>
              <td className="max-w-sm px-4 py-2.5">
                {/* Named by what it shows, then which entry it opens: a name that leaves out the
                    visible text fails speech input (WCAG "label in name"). Tall enough to hit. */}
                <button
                  type="button"
                  onClick={() => onOpen(e)}
                  className="block min-h-6 w-full truncate rounded text-left font-mono text-xs text-sky-700 hover:underline dark:text-sky-400"
                >
                  {detailsPreview(e.details) || "Details"}
                  <span className="sr-only">
                    {" "}
                    (details of {e.action} at {e.at})
                  </span>
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
