"use client";

import type { RegistrationRequest } from "@/lib/client/registration-requests";
import { Button } from "@/components/ui/button";
import { LabelChips } from "@/components/ui/label-chips";
import { RelativeTime } from "@/components/ui/relative-time";
import { ScrollRegion } from "@/components/ui/scroll-region";
import { TableHead } from "@/components/ui/table-head";
import { GroupLinks, VersionFlags } from "./request-facts";

const COLUMNS = ["Name", "Source", "Key", "Token", "Labels", "Cluster UID", "Joins groups", "Asked"];

/**
 * The queue as a table, for many requests at once: one row each with what tells them apart
 * (source, key, token, labels, UID), the version flags and the groups each would join. The
 * cards keep every fact; this view is for sorting out dozens by eye and deciding in bulk.
 */
export function RequestsTable({
  requests,
  selected,
  onSelect,
  canDecide,
  busy,
  onApprove,
  onDeny,
}: {
  requests: RegistrationRequest[];
  selected: ReadonlySet<string>;
  onSelect: (id: string, on: boolean) => void;
  canDecide: boolean;
  busy: boolean;
  onApprove: (r: RegistrationRequest) => void;
  onDeny: (r: RegistrationRequest) => void;
}) {
  const deciding = canDecide && requests.some((r) => r.state === "pending");
  return (
    <ScrollRegion label="Registration requests table" className="rounded-md border border-slate-200 dark:border-slate-800">
      <table className="w-full text-left text-sm">
        <caption className="sr-only">Registration requests</caption>
        <TableHead
          columns={
            deciding
              ? [
                  <span key="s" className="sr-only">
                    Select
                  </span>,
                  ...COLUMNS,
                ]
              : COLUMNS
          }
          actions={deciding}
        />
        <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
          {requests.map((r) => {
            const pending = r.state === "pending";
            return (
              <tr key={r.id} data-request-id={r.id} className={selected.has(r.id) ? "bg-sky-50/60 dark:bg-sky-950/30" : ""}>
                {deciding && (
                  <td className="px-4 py-2.5">
                    {pending && (
                      <input
                        type="checkbox"
                        className="size-4 accent-sky-700"
                        checked={selected.has(r.id)}
                        onChange={(e) => onSelect(r.id, e.target.checked)}
                        aria-label={`Select ${r.name}`}
                      />
                    )}
                  </td>
                )}
                <td className="px-4 py-2.5">
                  <div className="font-mono font-medium break-all">{r.name}</div>
                  {pending && r.pendingForName > 1 && (
                    <div className="text-xs text-amber-800 dark:text-amber-300">{r.pendingForName} requests for this name</div>
                  )}
                  <div className="mt-1 text-xs text-slate-600 dark:text-slate-400">
                    agent {r.agentVersion} · Kubernetes {r.kubernetesVersion ?? "unknown"}
                  </div>
                  <VersionFlags flags={r.versionFlags} className="mt-1" />
                </td>
                <td className="px-4 py-2.5 font-mono text-xs whitespace-nowrap">{r.sourceAddress ?? "unknown"}</td>
                <td className="px-4 py-2.5 font-mono text-xs" title={r.keyFingerprint}>
                  {r.keyFingerprint.slice(0, 19)}…
                </td>
                <td className="max-w-40 px-4 py-2.5">
                  <span className="block truncate" title={r.token.name}>
                    {r.token.name}
                  </span>
                </td>
                <td className="px-4 py-2.5">
                  <LabelChips labels={r.labels} max={3} />
                </td>
                <td className="px-4 py-2.5 font-mono text-xs" title={r.clusterUid ?? undefined}>
                  {r.clusterUid ? `${r.clusterUid.slice(0, 8)}…` : <span className="text-slate-500 dark:text-slate-400">—</span>}
                </td>
                <td className="px-4 py-2.5">
                  <GroupLinks groups={r.joinsGroups} />
                </td>
                <td className="px-4 py-2.5 whitespace-nowrap text-slate-600 dark:text-slate-400">
                  <RelativeTime iso={r.firstSeenAt} />
                </td>
                {deciding && (
                  <td className="px-4 py-2 text-right whitespace-nowrap">
                    {pending && (
                      <>
                        <Button
                          variant="ghost"
                          className="h-8 text-rose-700 dark:text-rose-400"
                          disabled={busy}
                          onClick={() => onDeny(r)}
                        >
                          Deny<span className="sr-only"> {r.name}</span>
                        </Button>
                        <Button variant="ghost" className="h-8" disabled={busy} onClick={() => onApprove(r)}>
                          Approve<span className="sr-only"> {r.name}</span>
                        </Button>
                      </>
                    )}
                  </td>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
