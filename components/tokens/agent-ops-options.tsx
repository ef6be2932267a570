"use client";

import { proxyCaProblem, type AgentOpsOptions } from "@/lib/domain/agent-manifest";
import { textareaClass } from "@/components/ui/reason-dialog";
import { FieldError } from "@/components/ui/field-error";

/** The manifest's options for platform teams as the page edits them: the proxy CA as typed. */
export type AgentOpsInput = { metrics: boolean; jsonLogs: boolean; proxyCaPem: string };
export const EMPTY_OPS_INPUT: AgentOpsInput = { metrics: false, jsonLogs: false, proxyCaPem: "" };

/** The input as manifest options and its problem; a bundle with a problem stays out of the manifest. */
export function parseOpsInput(input: AgentOpsInput): { options: AgentOpsOptions; proxyCaProblem: string | null } {
  const pem = input.proxyCaPem.trim();
  const problem = pem ? proxyCaProblem(pem) : null;
  return {
    options: {
      ...(input.metrics ? { metrics: true } : {}),
      ...(input.jsonLogs ? { logFormat: "json" as const } : {}),
      ...(pem && !problem ? { proxyCaPem: `${pem}\n` } : {}),
    },
    proxyCaProblem: problem,
  };
}

type Props = { value: AgentOpsInput; onChange: (value: AgentOpsInput) => void };

/** The https:// proxy's CA bundle, pasted as PEM: the manifest mounts it from a ConfigMap. */
export function ProxyCaField({ value, onChange, problem }: Props & { problem: string | null }) {
  return (
    <div className="space-y-1.5 sm:col-span-2">
      <label htmlFor="agent-proxy-ca" className="block text-sm font-medium">
        Proxy CA bundle
      </label>
      <textarea
        id="agent-proxy-ca"
        rows={3}
        className={`${textareaClass} resize-y font-mono text-xs`}
        placeholder="-----BEGIN CERTIFICATE-----"
        value={value.proxyCaPem}
        spellCheck={false}
        aria-invalid={problem ? true : undefined}
        aria-describedby={`agent-proxy-ca-hint${problem ? " agent-proxy-ca-error" : ""}`}
        onChange={(e) => onChange({ ...value, proxyCaPem: e.target.value })}
      />
      <p id="agent-proxy-ca-hint" className="text-xs text-slate-500 dark:text-slate-400">
        Only for an https:// proxy whose certificate a private CA signed: PEM, kept in the fleet-agent-proxy-ca ConfigMap
        (--proxy-ca-file).
      </p>
      <FieldError id="agent-proxy-ca-error" message={problem} />
    </div>
  );
}

/** /metrics and JSON logs, off by default. */
export function MonitoringOptions({ value, onChange }: Props) {
  const box = (key: "metrics" | "jsonLogs", label: string, hint: string) => (
    <div className="flex items-start gap-2">
      <input
        id={`agent-${key}`}
        type="checkbox"
        className="mt-0.5 h-4 w-4"
        checked={value[key]}
        aria-describedby={`agent-${key}-hint`}
        onChange={(e) => onChange({ ...value, [key]: e.target.checked })}
      />
      <div>
        <label htmlFor={`agent-${key}`} className="text-sm font-medium">
          {label}
        </label>
        <p id={`agent-${key}-hint`} className="text-xs text-slate-500 dark:text-slate-400">
          {hint}
        </p>
      </div>
    </div>
  );
  return (
    <fieldset className="space-y-3 rounded-md border border-slate-200 p-3 dark:border-slate-800">
      <legend className="px-1 text-sm font-semibold">Monitoring and logs</legend>
      {box(
        "metrics",
        "Expose Prometheus metrics",
        "Serves /metrics on the health port (8080) and adds the fleet-agent-metrics Service for a ServiceMonitor to scrape.",
      )}
      {box("jsonLogs", "JSON logs", "One JSON object per line (time, level, code, message, fields) instead of text.")}
    </fieldset>
  );
}
