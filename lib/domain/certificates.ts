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
