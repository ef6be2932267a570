"use client";

import { Button } from "@/components/ui/button";
import { inputClass } from "@/components/ui/field";
import { STAGE_PRESETS, stageDraft, type DraftErrors, type StageDraft } from "./rollout-draft";

const MAX_STAGES = 20;

/** Stages in order: a canary of N clusters, then batches by percentage of all clusters. */
export function StagesBuilder({
  stages,
  sizes,
  errors,
  onChange,
}: {
  stages: StageDraft[];
  /** clusters per stage from the preview (null: not known yet) */
  sizes: (number | null)[];
  errors: DraftErrors;
  onChange: (stages: StageDraft[]) => void;
}) {
  const set = (i: number, patch: Partial<StageDraft>) => onChange(stages.map((s, j) => (j === i ? { ...s, ...patch } : s)));
  const move = (i: number, by: -1 | 1) => {
    const next = [...stages];
    const [s] = next.splice(i, 1);
    next.splice(i + by, 0, s!);
    onChange(next);
  };
  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-center gap-2 text-xs">
        <span className="text-slate-500 dark:text-slate-400">Start from:</span>
        {STAGE_PRESETS.map((p) => (
          <button
            key={p.label}
            type="button"
            onClick={() => onChange(p.stages())}
            className="rounded-full border border-slate-300 px-2.5 py-1 font-medium text-slate-700 hover:bg-slate-100 dark:border-slate-700 dark:text-slate-300 dark:hover:bg-slate-800"
          >
            {p.label}
          </button>
        ))}
      </div>
      <ol className="space-y-2" aria-label="Stages">
        {stages.map((s, i) => {
          const last = i === stages.length - 1;
          const nameError = errors[`stages.${i}.name`];
          const valueError = errors[`stages.${i}.value`];
          const size = sizes[i];
          return (
            <li
              key={s.id}
              className="flex flex-wrap items-start gap-2 rounded-md sm:grid sm:grid-cols-[1.5rem_minmax(0,1fr)_11rem_6rem_6.5rem_auto] border border-slate-200 p-2 dark:border-slate-800"
            >
              <span className="w-6 shrink-0 pt-2 text-center text-xs font-semibold text-slate-500 tabular-nums dark:text-slate-400">
                {i + 1}
              </span>
              {/* On a phone the row wraps: name; size and value; the count and the buttons. */}
              <div className="min-w-0 flex-1 basis-48">
                <label htmlFor={`${s.id}-name`} className="sr-only">
                  Name of stage {i + 1}
                </label>
                <input
                  id={`${s.id}-name`}
                  className={inputClass}
                  value={s.name}
                  maxLength={40}
                  aria-invalid={nameError ? true : undefined}
                  onChange={(e) => set(i, { name: e.target.value })}
                />
                {nameError && <p className="mt-1 text-xs text-rose-600 dark:text-rose-400">{nameError}</p>}
              </div>
              <div className="w-40 sm:w-auto">
                <label htmlFor={`${s.id}-kind`} className="sr-only">
                  Size of stage {i + 1} as
                </label>
                <select
                  id={`${s.id}-kind`}
                  className={inputClass}
                  value={s.kind}
                  onChange={(e) => set(i, { kind: e.target.value as StageDraft["kind"] })}
                >
                  <option value="clusters">clusters (canary)</option>
                  <option value="percent">% of all clusters</option>
                </select>
              </div>
              <div className="w-24 sm:w-auto">
                <label htmlFor={`${s.id}-value`} className="sr-only">
                  {s.kind === "clusters" ? `Clusters in stage ${i + 1}` : `Percent of clusters in stage ${i + 1}`}
                </label>
                <input
                  id={`${s.id}-value`}
                  type="number"
                  min={1}
                  max={s.kind === "percent" ? 100 : undefined}
                  className={`${inputClass} tabular-nums`}
                  value={s.value}
                  aria-invalid={valueError ? true : undefined}
                  onChange={(e) => set(i, { value: e.target.value })}
                />
                {valueError && <p className="mt-1 text-xs text-rose-600 dark:text-rose-400">{valueError}</p>}
              </div>
              <p className="pt-2 text-right text-sm tabular-nums" aria-live="polite">
                {size === null || size === undefined ? (
                  <span className="text-slate-500 dark:text-slate-400">—</span>
                ) : (
                  <>
                    <span className={`font-semibold ${size === 0 ? "text-amber-700 dark:text-amber-400" : ""}`}>{size}</span>
                    <span className="text-slate-500 dark:text-slate-400"> cluster{size === 1 ? "" : "s"}</span>
                  </>
                )}
                {last && <span className="block text-[11px] text-slate-500 dark:text-slate-400">takes the rest</span>}
              </p>
              <div className="ml-auto flex gap-0.5 sm:ml-0">
                <Button type="button" variant="ghost" className="h-9 w-8 px-0" disabled={i === 0} onClick={() => move(i, -1)}>
                  <span aria-hidden>↑</span>
                  <span className="sr-only">Move stage {i + 1} up</span>
                </Button>
                <Button type="button" variant="ghost" className="h-9 w-8 px-0" disabled={last} onClick={() => move(i, 1)}>
                  <span aria-hidden>↓</span>
                  <span className="sr-only">Move stage {i + 1} down</span>
                </Button>
                <Button
                  type="button"
                  variant="ghost"
                  className="h-9 w-8 px-0 text-rose-700 dark:text-rose-400"
                  disabled={stages.length === 1}
                  onClick={() => onChange(stages.filter((_, j) => j !== i))}
                >
                  <span aria-hidden>✕</span>
                  <span className="sr-only">Remove stage {i + 1}</span>
                </Button>
              </div>
            </li>
          );
        })}
      </ol>
      <Button
        type="button"
        variant="secondary"
        disabled={stages.length >= MAX_STAGES}
        onClick={() => onChange([...stages, stageDraft(`batch-${stages.length}`, "percent", 50)])}
      >
        Add stage
      </Button>
      {errors.stages && <p className="text-xs text-rose-600 dark:text-rose-400">{errors.stages}</p>}
    </div>
  );
}
