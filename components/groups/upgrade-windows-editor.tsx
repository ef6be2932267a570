"use client";

import { WEEKDAYS, type UpgradeWindow, type Weekday } from "@/lib/domain/upgrade-windows";
import { Button } from "@/components/ui/button";
import { inputClass } from "@/components/ui/field";

// A group's weekly upgrade windows as edited: rows of days + start/end, and the zone they are in.

export type WindowsDraft = { timeZone: string; windows: UpgradeWindow[] };

export const NEW_WINDOW: UpgradeWindow = { days: ["Sat"], start: "02:00", end: "06:00" };

function zoneNames(): string[] {
  try {
    return Intl.supportedValuesOf("timeZone");
  } catch {
    return [];
  }
}

function TimeInput({
  label,
  name,
  value,
  onChange,
}: {
  label: string;
  /** the accessible name, e.g. "Window 1 start" */
  name: string;
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <label className="text-xs">
      <span className="block">{label}</span>
      <input
        type="time"
        aria-label={name}
        className={`${inputClass} w-28`}
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
    </label>
  );
}

/** Edit the windows; no windows means upgrades may start at any time. */
export function UpgradeWindowsEditor({
  value,
  onChange,
  errors,
}: {
  value: WindowsDraft;
  onChange: (next: WindowsDraft) => void;
  /** keyed "upgradeTimeZone" or "upgradeWindows.<i>..." */
  errors: Record<string, string | undefined>;
}) {
  const setWindow = (i: number, patch: Partial<UpgradeWindow>) =>
    onChange({ ...value, windows: value.windows.map((w, j) => (j === i ? { ...w, ...patch } : w)) });
  const toggleDay = (i: number, day: Weekday) => {
    const days = value.windows[i]!.days;
    setWindow(i, {
      days: days.includes(day) ? days.filter((d) => d !== day) : WEEKDAYS.filter((d) => d === day || days.includes(d)),
    });
  };
  const zoneError = errors.upgradeTimeZone;
  return (
    <fieldset className="space-y-3 rounded-md border border-slate-200 p-3 dark:border-slate-700">
      <legend className="px-1 text-sm font-medium">Upgrade windows</legend>
      <p className="text-xs text-slate-500 dark:text-slate-400">
        Rollouts start upgrades of this group&apos;s clusters only inside these weekly windows (a cluster in several groups waits
        until all of them are open). None: any time.
      </p>
      {value.windows.map((w, i) => {
        const rowError = Object.entries(errors).find(([k]) => k.startsWith(`upgradeWindows.${i}`))?.[1];
        return (
          <div key={i} className="space-y-2 rounded bg-slate-50 p-2 dark:bg-slate-800/50" data-testid="upgrade-window">
            <div role="group" aria-label={`Window ${i + 1} days`} className="flex flex-wrap gap-1">
              {WEEKDAYS.map((d) => (
                <label
                  key={d}
                  className="inline-flex cursor-pointer items-center gap-1 rounded border border-slate-300 px-1.5 py-0.5 text-xs has-[:checked]:border-sky-600 has-[:checked]:bg-sky-50 has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-sky-500 dark:border-slate-600 dark:has-[:checked]:bg-sky-950"
                >
                  <input type="checkbox" className="sr-only" checked={w.days.includes(d)} onChange={() => toggleDay(i, d)} />
                  {d}
                </label>
              ))}
            </div>
            <div className="flex flex-wrap items-end gap-2">
              <TimeInput
                label="From"
                name={`Window ${i + 1} start`}
                value={w.start}
                onChange={(start) => setWindow(i, { start })}
              />
              {/* 24:00 (end of day) is shown as midnight, which means the same to the predicate */}
              <TimeInput
                label="Until"
                name={`Window ${i + 1} end`}
                value={w.end === "24:00" ? "00:00" : w.end}
                onChange={(end) => setWindow(i, { end })}
              />
              <Button
                type="button"
                variant="ghost"
                className="h-9"
                onClick={() => onChange({ ...value, windows: value.windows.filter((_, j) => j !== i) })}
              >
                Remove<span className="sr-only"> window {i + 1}</span>
              </Button>
            </div>
            {rowError && <p className="text-xs text-rose-600 dark:text-rose-400">{rowError}</p>}
          </div>
        );
      })}
      <div className="flex flex-wrap items-end justify-between gap-3">
        <Button
          type="button"
          variant="secondary"
          className="h-8"
          onClick={() => onChange({ ...value, windows: [...value.windows, NEW_WINDOW] })}
        >
          Add window
        </Button>
        <div className="min-w-48 flex-1 space-y-1">
          <label htmlFor="group-time-zone" className="block text-xs font-medium">
            Time zone (IANA)
          </label>
          <input
            id="group-time-zone"
            list="group-time-zones"
            spellCheck={false}
            autoCapitalize="off"
            className={inputClass}
            value={value.timeZone}
            onChange={(e) => onChange({ ...value, timeZone: e.target.value })}
            aria-invalid={zoneError ? true : undefined}
            aria-describedby={zoneError ? "group-time-zone-error" : undefined}
          />
          <datalist id="group-time-zones">
            {zoneNames().map((z) => (
              <option key={z} value={z} />
            ))}
          </datalist>
          {zoneError && (
            <p id="group-time-zone-error" className="text-xs text-rose-600 dark:text-rose-400">
              {zoneError}
            </p>
          )}
        </div>
      </div>
    </fieldset>
  );
}
