"use client";

import type { ApiKey, ApiKeyStatus } from "@/lib/client/settings";
import { Badge, type Tone } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { RelativeTime, useNow } from "@/components/ui/relative-time";
import { formatIn, formatInstant, viewerTimeZone } from "@/lib/domain/time-format";
import { RoleBadge } from "./role-badge";
import { TableHead } from "@/components/ui/table-head";
import { ScrollRegion } from "@/components/ui/scroll-region";

const STATUS_TONE: Record<ApiKeyStatus, Tone> = { active: "green", expired: "amber", revoked: "red", creator_disabled: "red" };
const STATUS_LABEL: Record<ApiKeyStatus, string> = {
  active: "active",
  expired: "expired",
  revoked: "revoked",
  creator_disabled: "creator disabled",
};

function Expiry({ iso }: { iso: string | null }) {
  const now = useNow();
  if (!iso) return <span className="text-slate-500 dark:text-slate-400">never</span>;
  const left = Date.parse(iso) - now;
  return (
    <time
      dateTime={iso}
      title={formatInstant(iso, viewerTimeZone())}
      className={left < 7 * 86_400_000 ? "text-amber-700 dark:text-amber-400" : ""}
    >
      {left <= 0 ? formatInstant(iso, viewerTimeZone(), "date") : formatIn(left)}
    </time>
  );
}

/** API keys newest first: role, status, when last used and when they expire. */
export function ApiKeysTable({ keys, onRevoke }: { keys: ApiKey[]; onRevoke: (k: ApiKey) => void }) {
  return (
    <ScrollRegion label="API keys table" className="rounded-md border border-slate-200 dark:border-slate-800">
      <table className="w-full text-left text-sm">
        <caption className="sr-only">API keys, newest first</caption>
        <TableHead columns={["Name", "Role", "Status", "Last used", "Expires", "Created by"]} actions />
        <tbody className="divide-y divide-slate-100 tabular-nums dark:divide-slate-800">
          {keys.map((k) => (
            <tr key={k.id} data-api-key={k.name}>
              <td className="max-w-64 px-4 py-2.5">
                <div className="truncate font-medium">{k.name}</div>
                <code className="text-xs text-slate-500 dark:text-slate-400">frk_{k.id}_…</code>
              </td>
              <td className="px-4 py-2.5">
                <RoleBadge role={k.role} />
                {k.effectiveRole && k.effectiveRole !== k.role && (
                  <div className="mt-1 text-xs text-amber-700 dark:text-amber-400">
                    acts as {k.effectiveRole}: its creator&apos;s role
                  </div>
                )}
              </td>
              <td className="px-4 py-2.5">
                <Badge tone={STATUS_TONE[k.status]}>{STATUS_LABEL[k.status]}</Badge>
                {k.status === "creator_disabled" && (
                  <div className="mt-1 max-w-48 text-xs text-slate-600 dark:text-slate-400">
                    Stopped working: {k.createdBy ? `${k.createdBy.email} is disabled` : "its creator no longer exists"}.
                  </div>
                )}
              </td>
              <td className="px-4 py-2.5 text-slate-600 dark:text-slate-400">
                <RelativeTime iso={k.lastUsedAt} fallback="never" />
              </td>
              <td className="px-4 py-2.5 text-slate-600 dark:text-slate-400">
                {k.status === "revoked" ? "—" : <Expiry iso={k.expiresAt} />}
              </td>
              <td className="px-4 py-2.5 text-slate-600 dark:text-slate-400">
                <div className="max-w-48 truncate">{k.createdBy?.email ?? "unknown"}</div>
                <RelativeTime iso={k.createdAt} />
              </td>
              <td className="px-4 py-2 text-right">
                {(k.status === "active" || k.status === "creator_disabled") && (
                  <Button variant="ghost" className="h-8 text-rose-700 dark:text-rose-400" onClick={() => onRevoke(k)}>
                    Revoke<span className="sr-only"> {k.name}</span>
                  </Button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
