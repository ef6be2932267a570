"use client";

import { useState, type FormEvent } from "react";
import type { AuditFilters } from "@/lib/client/audit";
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
export function AuditFiltersForm({ filters, onApply }: { filters: AuditFilters; onApply: (f: AuditFilters) => void }) {
  const hydrated = useHydrated();
  const zone = hydrated ? viewerTimeZone() : "UTC";
  const [text, setText] = useState({ actor: filters.actor ?? "", action: filters.action ?? "", target: filters.target ?? "" });
  const [from, setFrom] = useState(() => toLocalInput(filters.from, zone));
  const [to, setTo] = useState(() => toLocalInput(filters.to, zone));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onApply({
      actor: text.actor.trim() || undefined,
      action: text.action.trim() || undefined,
      target: text.target.trim() || undefined,
      from: fromLocalInput(from),
      to: fromLocalInput(to),
    });
  };
  const range = (label: string, value: string, set: (v: string) => void, testId: string) => (
    <label className="space-y-1.5 text-sm font-medium">
      <span>
        {label} <span className="font-normal text-slate-500 dark:text-slate-400">({zoneName(zone)})</span>
      </span>
      <input
        type="datetime-local"
        className={inputClass}
        value={value}
        onChange={(e) => set(e.target.value)}
        data-testid={testId}
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
        {range("From", from, setFrom, "audit-from")}
        {range("To", to, setTo, "audit-to")}
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
