// Pure rules about agent certificates and the fleet CA, shared by the server and the console.

const DAY_MS = 24 * 60 * 60 * 1000;

/** Rotate's renewal grace: a certificate that ended at `notAfter` may still renew itself until then + grace. */
export function withinRenewalGrace(notAfter: Date, graceDays: number, now: Date): boolean {
  return now.getTime() - notAfter.getTime() <= graceDays * DAY_MS;
}

/** Share of clusters whose current certificates all come from the incoming CA, 0-100, floored. */
export function rolloverPercent(progress: { clusters: number; onOldCa: number }): number {
  if (progress.clusters === 0) return 100;
  return Math.floor(((progress.clusters - progress.onOldCa) / progress.clusters) * 100);
}

/** One fleet CA as the console and GET /api/v1/ca show it (public facts only). */
export type CaSummary = { fingerprint: string; subject: string; notAfter: string; state: "active" | "retiring" | "incoming" };

/** GET /api/v1/ca: the fleet's CAs and, during a rollover, its progress. */
export type CaStatus = {
  cas: CaSummary[];
  rollover: {
    startedAt: string;
    startedBy: string;
    /** Clusters with a current (unrevoked, unexpired) certificate. */
    clusters: number;
    /** Of those, clusters still holding a current certificate of the old CA. */
    onOldCa: number;
    percent: number;
    byIssuer: { fingerprint: string; clusters: number }[];
    canRetire: boolean;
  } | null;
  retired: { fingerprint: string; retiredAt: string } | null;
};
