"use client";

import { useState, type FormEvent } from "react";
import type { AuditFilter } from "@/lib/contracts/audit";
import { formatInstant, viewerTimeZone, zoneName } from "@/lib/domain/time-format";
import { Button } from "@/components/ui/button";
import { inputClass } from "@/components/ui/field";
import { useHydrated } from "@/components/ui/local-time";

const TEXT_FILTERS = [
  { key: "actor", label: "Actor", placeholder: "admin@example.com" },
  { key: "action", label: "Action", placeholder: "rollout." },
  { key: "target", label: "Target name or id", placeholder: "prod-eu-1" },
] as const;

/** An ISO instant as a datetime-local input shows it, in the viewer's zone ("2026-12-01T08:14"). */
function toLocalInput(iso: string | undefined, zone: string): string {
  return iso ? `${formatInstant(iso, zone, "date")}T${formatInstant(iso, zone, "minute")}` : "";
}
/** A datetime-local value (the browser's zone, the viewer's) as the ISO instant the URL carries. */
function fromLocalInput(value: string): string | undefined {
  const ms = value ? new Date(value).getTime() : NaN;
  return Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
}

/**
 * The audit log's filters. Applied on submit (Enter or Apply), so the URL changes once per
 * question asked, not per keystroke. Remount it (key) when the URL's filters change.
 */
export function AuditFiltersForm({ filters, onApply }: { filters: AuditFilter; onApply: (f: AuditFilter) => void }) {
  const hydrated = useHydrated();
  const zone = hydrated ? viewerTimeZone() : "UTC";
  const [text, setText] = useState({ actor: filters.actor ?? "", action: filters.action ?? "", target: filters.target ?? "" });
  // Held as ISO instants and shown in the viewer's zone, so hydration (which learns the zone)
  // changes what the inputs show without throwing away anything typed.
  const [range, setRange] = useState({ from: filters.from, to: filters.to });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onApply({
      actor: text.actor.trim() || undefined,
      action: text.action.trim() || undefined,
      target: text.target.trim() || undefined,
      ...range,
    });
  };
  const rangeInput = (key: "from" | "to", label: string) => (
    <label className="space-y-1.5 text-sm font-medium">
      <span>
        {label} <span className="font-normal text-slate-500 dark:text-slate-400">({zoneName(zone)})</span>
      </span>
      <input
        type="datetime-local"
        className={inputClass}
        value={toLocalInput(range[key], zone)}
        onChange={(e) => setRange((r) => ({ ...r, [key]: fromLocalInput(e.target.value) }))}
        data-testid={`audit-${key}`}
      />
    </label>
  );
  return (
    <form role="search" aria-label="Filter the audit log" onSubmit={submit} className="space-y-3">
      <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-3 xl:grid-cols-5">
        {TEXT_FILTERS.map((f) => (
          <label key={f.key} className="space-y-1.5 text-sm font-medium">
            <span>{f.label}</span>
            <input
              name={f.key}
              className={inputClass}
              placeholder={f.placeholder}
              value={text[f.key]}
              onChange={(e) => setText((t) => ({ ...t, [f.key]: e.target.value }))}
            />
          </label>
        ))}
        {rangeInput("from", "From")}
        {rangeInput("to", "To")}
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <Button type="submit">Apply filters</Button>
        <Button type="button" variant="ghost" onClick={() => onApply({})}>
          Clear
        </Button>
        <p className="text-xs text-slate-500 dark:text-slate-400">Actor, action and target match from the start.</p>
      </div>
    </form>
  );
}
