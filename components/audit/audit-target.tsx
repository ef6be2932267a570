import Link from "next/link";
import type { AuditEntry } from "@/lib/client/audit";
import { auditTargetHref, auditTargetLabel } from "@/lib/domain/audit-targets";

/** "cluster prod-eu-1", linked to the cluster's page (or the page that lists such targets). */
export function AuditTarget({ entry: e }: { entry: AuditEntry }) {
  if (!e.targetType) return <span className="text-slate-500 dark:text-slate-400">—</span>;
  const href = auditTargetHref(e.targetType, e.targetId);
  const name = e.targetName ?? e.targetId ?? "";
  return (
    <span className="min-w-0">
      <span className="text-xs text-slate-500 dark:text-slate-400">{auditTargetLabel(e.targetType)} </span>
      {href ? (
        <Link href={href} prefetch={false} className="font-medium break-all text-sky-700 hover:underline dark:text-sky-400">
          {name}
        </Link>
      ) : (
        <span className="font-medium break-all">{name}</span>
      )}
      {e.targetName && e.targetId && e.targetName !== e.targetId && (
        <span className="block font-mono text-[11px] break-all text-slate-500 dark:text-slate-400">{e.targetId}</span>
      )}
    </span>
  );
}
