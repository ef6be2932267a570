"use client";

import { Button } from "@/components/ui/button";

import { useState, type FormEvent } from "react";
import { selectionBody, useBulkLabels, type BulkLabelsResult, type Selection } from "@/lib/client/cluster-bulk";
import { parseLabelChange, type LabelChange } from "@/lib/domain/bulk-labels";
import { Dialog } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { FormActions } from "@/components/ui/form-actions";
import { LabelChips } from "@/components/ui/label-chips";
import { LeftOutNote } from "./bulk-guard-notice";
import { selectionText } from "./bulk-selection-text";

const ROWS_PREVIEWED = 10;
const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;

/** "12 clusters gain tier=gold", "3 change tier from silver to gold", "2 lose legacy", "40 unchanged". */
function summaryLines(s: BulkLabelsResult["summary"]): string[] {
  return [
    ...s.gains.map((g) => `${plural(g.count, "cluster")} gain ${g.key}=${g.value}`),
    ...s.changes.map((c) => `${plural(c.count, "cluster")} change ${c.key} from ${c.from || '""'} to ${c.to || '""'}`),
    ...s.removals.map((r) => `${plural(r.count, "cluster")} lose ${r.key}`),
    `${plural(s.unchanged, "cluster")} unchanged`,
  ];
}

/**
 * Set and remove labels on the selection: edit -> preview (the server's dry run: what changes on
 * which clusters, and how many) -> apply, as one audited change. For "all matching", the filter
 * is evaluated again when applying; the preview's count is what the person confirms.
 */
export function BulkLabelsDialog({ selection, onClose }: { selection: Selection; onClose: () => void }) {
  const [setText, setSetText] = useState("");
  const [removeText, setRemoveText] = useState("");
  const [problems, setProblems] = useState<string[]>([]);
  const [preview, setPreview] = useState<{ change: LabelChange; result: BulkLabelsResult } | null>(null);
  const [applied, setApplied] = useState<BulkLabelsResult | null>(null);
  const bulk = useBulkLabels();

  const submitPreview = (e: FormEvent) => {
    e.preventDefault();
    const parsed = parseLabelChange(setText, removeText);
    setProblems(parsed.problems);
    if (parsed.problems.length) return;
    bulk.mutate(
      { ...selectionBody(selection), ...parsed.change, dryRun: true },
      { onSuccess: (result) => setPreview({ change: parsed.change, result }) },
    );
  };
  const apply = (e: FormEvent) => {
    e.preventDefault();
    if (!preview) return;
    bulk.mutate({ ...selectionBody(selection), ...preview.change, dryRun: false }, { onSuccess: setApplied });
  };

  if (applied)
    return (
      <Dialog title="Labels changed" onClose={onClose}>
        <p role="status" className="text-sm" data-testid="bulk-labels-done">
          Labels changed on {plural(applied.summary.changed, "cluster")} ({applied.summary.unchanged.toLocaleString("en-US")}{" "}
          already matched). The change is in the audit log as one entry.
        </p>
        <div className="mt-4 flex justify-end">
          <Button type="button" autoFocus onClick={onClose}>
            Done
          </Button>
        </div>
      </Dialog>
    );

  if (preview) {
    const s = preview.result.summary;
    return (
      <Dialog title="Preview the label change" description={selectionText(selection)} onClose={onClose}>
        <form onSubmit={apply} className="space-y-4">
          <ul className="list-disc space-y-0.5 pl-5 text-sm" data-testid="bulk-labels-summary">
            {summaryLines(s).map((l) => (
              <li key={l}>{l}</li>
            ))}
          </ul>
          <LeftOutNote leftOut={preview.result.leftOut} />
          {preview.result.rows.length > 0 && (
            <div className="max-h-56 overflow-auto rounded-md border border-slate-200 dark:border-slate-700">
              <table className="w-full text-left text-xs">
                <caption className="sr-only">Labels before and after, per cluster</caption>
                <thead className="bg-slate-50 text-slate-500 dark:bg-slate-800/50 dark:text-slate-400">
                  <tr>
                    <th scope="col" className="px-2 py-1 font-medium">
                      Cluster
                    </th>
                    <th scope="col" className="px-2 py-1 font-medium">
                      Before
                    </th>
                    <th scope="col" className="px-2 py-1 font-medium">
                      After
                    </th>
                  </tr>
                </thead>
                <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
                  {preview.result.rows.slice(0, ROWS_PREVIEWED).map((r) => (
                    <tr key={r.id}>
                      <td className="px-2 py-1 font-medium">{r.name}</td>
                      <td className="px-2 py-1">
                        <LabelChips
                          labels={r.before}
                          max={3}
                          first={[...Object.keys(preview.change.set), ...preview.change.remove]}
                        />
                      </td>
                      <td className="px-2 py-1">
                        <LabelChips labels={r.after} max={3} first={Object.keys(preview.change.set)} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
              {s.changed > ROWS_PREVIEWED && (
                <p className="px-2 py-1 text-xs text-slate-500 dark:text-slate-400">
                  and {plural(s.changed - ROWS_PREVIEWED, "more cluster")}
                </p>
              )}
            </div>
          )}
          {selection.kind === "matching" && (
            <p className="text-sm text-slate-600 dark:text-slate-400">
              The filter is evaluated again when you apply: clusters that match by then are changed.
            </p>
          )}
          <FormActions
            onCancel={() => setPreview(null)}
            cancelLabel="Back"
            pending={bulk.isPending}
            label={`Apply to ${plural(s.changed, "cluster")}`}
            pendingLabel="Applying…"
            disabled={s.changed === 0}
            error={bulk.error}
          />
        </form>
      </Dialog>
    );
  }

  return (
    <Dialog title="Edit labels" description={selectionText(selection)} onClose={onClose}>
      <form onSubmit={submitPreview} className="space-y-4">
        <Field
          id="bulk-set"
          label="Add or change"
          placeholder="tier=gold, team=db"
          value={setText}
          onChange={(e) => setSetText(e.target.value)}
          hint="key=value pairs, separated by commas"
          autoFocus
        />
        <Field
          id="bulk-remove"
          label="Remove"
          placeholder="legacy, foo"
          value={removeText}
          onChange={(e) => setRemoveText(e.target.value)}
          hint="keys, separated by commas; required labels cannot be removed"
        />
        {problems.length > 0 && (
          <ul role="alert" className="list-disc pl-5 text-xs text-rose-600 dark:text-rose-400">
            {problems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        )}
        <FormActions
          onCancel={onClose}
          pending={bulk.isPending}
          label="Preview changes"
          pendingLabel="Previewing…"
          disabled={!setText.trim() && !removeText.trim()}
          error={bulk.error}
        />
      </form>
    </Dialog>
  );
}
