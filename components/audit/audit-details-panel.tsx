"use client";

import type { ReactNode } from "react";
import type { AuditEntry } from "@/lib/client/audit";
import { Drawer } from "@/components/ui/drawer";
import { LocalTime } from "@/components/ui/local-time";
import { RelativeTime } from "@/components/ui/relative-time";
import { AuditTarget } from "./audit-target";

/** One audit entry in full: when, who, what, to what, and every recorded detail. */
export function AuditDetailsPanel({ entry: e, onClose }: { entry: AuditEntry; onClose: () => void }) {
  const rows: [string, ReactNode][] = [
    [
      "When",
      <span key="at">
        <LocalTime iso={e.at} format="datetime" />
        <span className="block text-xs text-slate-500 dark:text-slate-400">
          <RelativeTime iso={e.at} /> · <span className="font-mono">{e.at}</span>
        </span>
      </span>,
    ],
    [
      "Actor",
      <span key="actor">
        {e.actor} <span className="text-xs text-slate-500 dark:text-slate-400">({e.actorType})</span>
      </span>,
    ],
    [
      "Action",
      <code key="action" className="font-mono text-xs">
        {e.action}
      </code>,
    ],
    ["Target", <AuditTarget key="target" entry={e} />],
  ];
  return (
    <Drawer title={<span className="font-mono">{e.action}</span>} onClose={onClose}>
      <dl className="space-y-3 text-sm" data-testid="audit-details">
        {rows.map(([label, value]) => (
          <div key={label} className="grid grid-cols-[6rem_minmax(0,1fr)] gap-3">
            <dt className="text-slate-500 dark:text-slate-400">{label}</dt>
            <dd className="min-w-0">{value}</dd>
          </div>
        ))}
      </dl>
      <h3 className="mt-6 text-xs font-medium tracking-wide text-slate-500 uppercase dark:text-slate-400">Details</h3>
      {Object.keys(e.details).length === 0 ? (
        <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">Nothing more was recorded.</p>
      ) : (
        <pre className="mt-2 overflow-x-auto rounded-md bg-slate-50 p-3 font-mono text-xs whitespace-pre-wrap break-words dark:bg-slate-950">
          {JSON.stringify(e.details, null, 2)}
        </pre>
      )}
    </Drawer>
  );
}
