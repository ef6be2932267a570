"use client";

import type { RegistrationToken } from "@/lib/client/tokens";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { RelativeTime, useNow } from "@/components/ui/relative-time";
import { liveTokenStatus, TokenExpiry } from "./token-expiry";
import { TokenScopeSummary } from "./token-scope-summary";
import { TokenStatusBadge } from "./token-status-badge";
import { TokenUsesMeter } from "./token-uses-meter";
import { ScrollRegion } from "@/components/ui/scroll-region";

const TH = "px-4 py-2.5 font-medium";

/** The registration tokens, newest first; the Revoke column only for those who may revoke some. */
export function TokensTable({
  tokens,
  mayRevoke,
  onRevoke,
}: {
  tokens: RegistrationToken[];
  /** Whether the viewer may revoke this token (a team's tokens are its admins'). */
  mayRevoke: (token: RegistrationToken) => boolean;
  onRevoke: (token: RegistrationToken) => void;
}) {
  const now = useNow();
  const canRevoke = tokens.some(mayRevoke);
  return (
    <ScrollRegion
      label="Tokens table"
      className="relative rounded-lg border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900"
    >
      <table className="w-full text-left text-sm">
        <caption className="sr-only">Registration tokens, newest first</caption>
        <thead className="bg-slate-50 text-xs tracking-wide text-slate-500 uppercase dark:bg-slate-800/50 dark:text-slate-400">
          <tr>
            <th scope="col" className={TH}>
              Name
            </th>
            <th scope="col" className={TH}>
              Status
            </th>
            <th scope="col" className={TH}>
              Uses
            </th>
            <th scope="col" className={TH}>
              Expires
            </th>
            <th scope="col" className={TH}>
              Label scope
            </th>
            {canRevoke && (
              <th scope="col" className="w-0 py-2.5 pr-2">
                <span className="sr-only">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
          {tokens.map((t) => {
            const status = liveTokenStatus(t, now);
            return (
              <tr key={t.id} data-token-id={t.id} className="align-middle">
                <td className="max-w-52 px-4 py-3">
                  <div className="flex items-center gap-1.5">
                    <span className="truncate font-medium" title={t.name}>
                      {t.name}
                    </span>
                    {t.team && (
                      <Badge title={`The team ${t.team}'s token: its clusters land in the team's scope`}>team {t.team}</Badge>
                    )}
                  </div>
                  <div className="truncate text-xs text-slate-500 dark:text-slate-400" title={t.description ?? undefined}>
                    {t.description ? `${t.description} · ` : ""}created <RelativeTime iso={t.createdAt} />
                  </div>
                </td>
                <td className="px-4 py-3">
                  <div className="flex flex-wrap items-center gap-1">
                    <TokenStatusBadge status={status} />
                    {t.requireApproval && (
                      <Badge tone="violet" title="Clusters registering with it wait for an operator's approval">
                        approval
                      </Badge>
                    )}
                  </div>
                </td>
                <td className="px-4 py-3">
                  <TokenUsesMeter used={t.usedClusters} max={t.maxClusters} />
                </td>
                <td className="px-4 py-3 whitespace-nowrap">
                  <TokenExpiry expiresAt={t.expiresAt} revokedAt={t.revokedAt} />
                </td>
                <td className="max-w-64 px-4 py-3">
                  <TokenScopeSummary allowed={t.allowedLabels} fixed={t.fixedLabels} />
                </td>
                {canRevoke && (
                  <td className="py-3 pr-2 pl-0 text-right">
                    {mayRevoke(t) && (status === "active" || status === "exhausted") ? (
                      <Button variant="ghost" className="h-8 text-rose-700 dark:text-rose-400" onClick={() => onRevoke(t)}>
                        Revoke<span className="sr-only"> {t.name}</span>
                      </Button>
                    ) : null}
                  </td>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
