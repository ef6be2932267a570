import type { ClusterDetail } from "@/lib/client/clusters";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";

const MARK = {
  pass: { icon: "✓", className: "bg-emerald-100 text-emerald-700 dark:bg-emerald-950 dark:text-emerald-300", word: "passes" },
  fail: { icon: "✕", className: "bg-rose-100 text-rose-700 dark:bg-rose-950 dark:text-rose-300", word: "fails" },
  pending: { icon: "…", className: "bg-slate-100 text-slate-600 dark:bg-slate-800 dark:text-slate-300", word: "pending" },
} as const;

/** The enrollment checklist: the cluster is enrolled only when every item passes. */
export function EnrollmentChecklist({ enrollment }: { enrollment: ClusterDetail["enrollment"] }) {
  const passed = enrollment.items.filter((i) => i.state === "pass").length;
  return (
    <Card
      title="Enrollment"
      action={
        enrollment.complete ? (
          <Badge tone="green">Enrolled</Badge>
        ) : (
          <Badge tone="amber">
            {passed} of {enrollment.items.length} pass
          </Badge>
        )
      }
    >
      <ul className="space-y-2.5">
        {enrollment.items.map((item) => {
          const mark = MARK[item.state];
          return (
            <li key={item.key} className="flex gap-2.5 text-sm">
              <span
                aria-hidden
                className={`mt-0.5 flex h-5 w-5 shrink-0 items-center justify-center rounded-full text-xs font-bold ${mark.className}`}
              >
                {mark.icon}
              </span>
              <span className="min-w-0">
                <span className="font-medium">{item.label}</span>
                <span className="sr-only"> — {mark.word}</span>
                <span className="block text-xs text-slate-500 dark:text-slate-400">{item.reason}</span>
              </span>
            </li>
          );
        })}
      </ul>
    </Card>
  );
}
