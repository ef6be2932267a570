"use client";

import type { TokenStatus } from "@/lib/domain/tokens";
import { formatAgo, formatIn, formatInstant, viewerTimeZone } from "@/lib/domain/time-format";
import { useNow } from "@/components/ui/relative-time";

// Under this much time left a token is flagged: an agent still being installed may miss it.
const SOON_MS = 15 * 60_000;

/**
 * The status as of now: the list is fetched every few seconds, but a countdown reaching zero
 * between fetches must not keep saying "active".
 */
export function liveTokenStatus(t: { status: TokenStatus; expiresAt: string }, now: number): TokenStatus {
  return t.status === "active" && Date.parse(t.expiresAt) <= now ? "expired" : t.status;
}

/** Expiry as a live countdown ("in 1 h 59 min"), or when it expired or was revoked. */
export function TokenExpiry({ expiresAt, revokedAt }: { expiresAt: string; revokedAt: string | null }) {
  const now = useNow();
  const left = Date.parse(expiresAt) - now;
  const absolute = formatInstant(expiresAt, viewerTimeZone());
  if (revokedAt) {
    return (
      <time
        dateTime={revokedAt}
        title={`Revoked ${formatInstant(revokedAt, viewerTimeZone())}`}
        className="text-slate-500 tabular-nums dark:text-slate-400"
      >
        revoked {formatAgo(now - Date.parse(revokedAt))}
      </time>
    );
  }
  if (left <= 0) {
    return (
      <time dateTime={expiresAt} title={absolute} className="text-slate-500 tabular-nums dark:text-slate-400">
        expired {formatAgo(-left)}
      </time>
    );
  }
  return (
    <time
      dateTime={expiresAt}
      title={absolute}
      className={`tabular-nums ${left < SOON_MS ? "font-medium text-amber-700 dark:text-amber-400" : ""}`}
    >
      {formatIn(left)}
    </time>
  );
}
