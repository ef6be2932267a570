"use client";

import { Fragment, useState } from "react";
import type { Policy } from "@/lib/client/policies";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { RelativeTime } from "@/components/ui/relative-time";
import { prettyJson } from "@/components/ui/json-text";
import { TableHead } from "@/components/ui/table-head";
import { ScrollRegion } from "@/components/ui/scroll-region";

function contentSummary(content: Policy["content"]): string {
  const keys = Object.keys(content ?? {});
  if (!keys.length) return "empty";
  return keys.length <= 3 ? keys.join(", ") : `${keys.slice(0, 3).join(", ")} +${keys.length - 3}`;
}

/** Policies by name: current revision, where they apply, and (on demand) their content. */
export function PoliciesTable({
  policies,
  canEdit,
  onPublish,
  onEdit,
  onDelete,
}: {
  policies: Policy[];
  canEdit: boolean;
  onPublish: (p: Policy) => void;
  onEdit: (p: Policy) => void;
  onDelete: (p: Policy) => void;
}) {
  const [open, setOpen] = useState<string | null>(null);
  const columns = canEdit ? 5 : 4;
  return (
    <ScrollRegion
      label="Policies table"
      className="rounded-lg border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900"
    >
      <table className="w-full text-left text-sm">
        <caption className="sr-only">Policies by name</caption>
        <TableHead columns={["Policy", "Revision", "Target groups", "Content"]} actions={canEdit} />
        <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
          {policies.map((p) => {
            const latest = p.revisions[0];
            const expanded = open === p.id;
            return (
              <Fragment key={p.id}>
                <tr data-policy={p.name} className="align-top">
                  <td className="max-w-80 px-4 py-3">
                    <div className="truncate font-medium">{p.name}</div>
                    {p.description ? (
                      <div className="line-clamp-2 text-xs text-slate-500 dark:text-slate-400" title={p.description}>
                        {p.description}
                      </div>
                    ) : (
                      <div className="text-xs text-slate-500 dark:text-slate-400">No description</div>
                    )}
                  </td>
                  <td className="px-4 py-3 whitespace-nowrap">
                    <Badge tone="blue">
                      <span data-testid="policy-revision">r{p.revision ?? "—"}</span>
                    </Badge>
                    {latest && (
                      <div className="mt-1 text-xs text-slate-500 dark:text-slate-400">
                        published <RelativeTime iso={latest.createdAt} />
                      </div>
                    )}
                  </td>
                  <td className="max-w-72 px-4 py-3">
                    {p.groups.length ? (
                      <ul className="flex flex-wrap gap-1.5" aria-label={`Target groups of ${p.name}`}>
                        {p.groups.map((g) => (
                          <li key={g.id}>
                            {g.selectorError ? (
                              <Badge tone="red" title={`Invalid selector: ${g.selectorError}. The policy reaches none of it.`}>
                                {g.name} · invalid selector
                              </Badge>
                            ) : (
                              <Badge>{g.name}</Badge>
                            )}
                          </li>
                        ))}
                      </ul>
                    ) : (
                      <span className="text-xs text-amber-700 dark:text-amber-400">No groups: applies to no cluster</span>
                    )}
                  </td>
                  <td className="px-4 py-3">
                    <button
                      type="button"
                      aria-expanded={expanded}
                      aria-controls={`policy-content-${p.id}`}
                      onClick={() => setOpen(expanded ? null : p.id)}
                      className="group flex max-w-60 items-center gap-1.5 text-left text-xs text-slate-600 hover:text-slate-900 dark:text-slate-400 dark:hover:text-slate-100"
                    >
                      <span aria-hidden className={`transition-transform ${expanded ? "rotate-90" : ""}`}>
                        ▸
                      </span>
                      <code className="truncate font-mono">{contentSummary(p.content)}</code>
                      <span className="sr-only">
                        {expanded ? "Hide" : "Show"} the content of {p.name}
                      </span>
                    </button>
                  </td>
                  {canEdit && (
                    <td className="px-4 py-2 text-right whitespace-nowrap">
                      <Button variant="ghost" className="h-8" onClick={() => onPublish(p)}>
                        Publish revision<span className="sr-only"> of {p.name}</span>
                      </Button>
                      <Button variant="ghost" className="h-8" onClick={() => onEdit(p)}>
                        Edit<span className="sr-only"> {p.name}</span>
                      </Button>
                      <Button variant="ghost" className="h-8 text-rose-700 dark:text-rose-400" onClick={() => onDelete(p)}>
                        Delete<span className="sr-only"> {p.name}</span>
                      </Button>
                    </td>
                  )}
                </tr>
                {expanded && (
                  <tr id={`policy-content-${p.id}`} className="bg-slate-50/60 dark:bg-slate-950/40">
                    <td colSpan={columns} className="px-4 py-3">
                      <p className="mb-2 text-xs text-slate-500 dark:text-slate-400">
                        Revision {p.revision} · {p.revisions.length} revision{p.revisions.length === 1 ? "" : "s"} in all
                      </p>
                      <pre className="max-h-72 overflow-auto rounded-md border border-slate-200 bg-white p-3 font-mono text-xs leading-relaxed dark:border-slate-800 dark:bg-slate-900">
                        {prettyJson(p.content ?? {})}
                      </pre>
                    </td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
