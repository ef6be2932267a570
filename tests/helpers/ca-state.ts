// Fleet CAs without a database, and the CA state the agent port and the edge files are built from.
import type { CaState } from "@/lib/server/pki/current-ca";
import type { FleetCa } from "@/lib/server/pki/fleet-ca";

/** A SecretStore in memory: each loadOrCreateFleetCa on a new one makes a new CA. */
export function memoryStore() {
  const data = new Map<string, string>();
  return {
    get: async (n: string) => data.get(n) ?? null,
    create: async (n: string, v: string) => (data.has(n) ? false : (data.set(n, v), true)),
  };
}

/** The state of a fleet serving with `serving`, during a rollover to `next` when given. */
export function caStateOf(serving: FleetCa, next: FleetCa | null = null): CaState {
  const trusted = next ? [serving, next] : [serving];
  return {
    serving,
    next,
    issuing: next ?? serving,
    trusted,
    bundlePem: trusted.map((c) => c.certPem).join(""),
    rollover: next ? { startedAt: new Date(), startedBy: "test" } : null,
    retired: null,
    version: trusted.map((c) => c.fingerprint).join(","),
  };
}
