import type { ForcedSkip } from "@/lib/client/clusters";
import { Card } from "@/components/ui/card";
import { LocalTime } from "@/components/ui/local-time";

const ACTION_WORDS: Record<string, string> = {
  "confirm-workloads": "Continued with pods still running",
  remove: "Removed without the agent's acknowledgement",
};

/** Waits an operator skipped, with who, when and why (each is also in the audit log). */
export function ForcedSkips({ forced }: { forced: ForcedSkip[] }) {
  return (
    <Card title="Skipped waits">
      <ul className="space-y-3 text-sm">
        {forced.map((f) => (
          <li key={`${f.action}-${f.at}`}>
            <p className="font-medium">{ACTION_WORDS[f.action] ?? f.action}</p>
            <p className="text-slate-600 dark:text-slate-400">“{f.reason}”</p>
            <p className="text-xs text-slate-500 tabular-nums dark:text-slate-400">
              {f.by} · <LocalTime iso={f.at} format="datetime" />
            </p>
          </li>
        ))}
      </ul>
    </Card>
  );
}
