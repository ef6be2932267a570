import "server-only";
import { env } from "@/lib/env";
import { db } from "@/lib/server/db/client";
import { log } from "@/lib/server/log";
import { CA_SECRETS, dbSecretStore, decodeStoredCa, loadOrCreateFleetCa, type FleetCa } from "./fleet-ca";
import { processSingleton } from "@/lib/server/process-singletons";
import { everywhere } from "@/lib/server/agent-port/workers/primary-calls";

/**
 * The fleet's CAs as every instance sees them. Outside a rollover there is one CA. During a
 * rollover (ca-rollover.ts) the incoming CA signs every new client certificate while the agent
 * port still presents a server certificate from the outgoing one, and client certificates of
 * both are accepted; retiring the old CA makes the incoming one the only CA.
 */
export type CaState = {
  /** Issues the agent port's server certificate; the CA of `fleet-ca.key`. */
  serving: FleetCa;
  /** The incoming CA during a rollover. */
  next: FleetCa | null;
  /** Signs new client certificates (registration, rotate): `next ?? serving`. */
  issuing: FleetCa;
  /** Client certificates chaining to these are accepted. */
  trusted: FleetCa[];
  /** The trusted certificates as one PEM bundle, the serving CA first. */
  bundlePem: string;
  rollover: { startedAt: Date; startedBy: string } | null;
  /** The CA retired by the last completed rollover, announced to agents for a while after. */
  retired: { fingerprint: string; retiredAt: Date } | null;
  /** Changes whenever any of the above does. */
  version: string;
};

// Other instances start and retire rollovers: re-read the rows at most this often.
const REFRESH_MS = 2_000;
/** How long past REFRESH_MS the state in hand is still served while the rows are read again. */
const SERVE_STALE_MS = 10_000;

// One state per process, shared by the custom server (agent TLS port) and the Next bundle
// (signing), which load this module separately.
type Cache = { state: CaState; at: number; rows: string } | null;
const g = processSingleton<{
  first?: Promise<FleetCa>;
  cached?: Cache;
  loading?: Promise<CaState>;
  listeners: Set<(state: CaState) => void>;
}>("fleet-ca", () => ({ listeners: new Set() }));

/**
 * Calls `listener` with every new CA state this process loads, before any caller sees it. The
 * agent port switches its server certificate here: a heartbeat answer that hands agents a bundle
 * without the retired CA is built only after the port stopped presenting a certificate from it.
 */
export function onCaStateChange(listener: (state: CaState) => void): () => void {
  g.listeners.add(listener);
  return () => g.listeners.delete(listener);
}

/** First load: creates the CA on the very first start, seals a clear key when a KEK is set. */
function firstLoad(): Promise<FleetCa> {
  g.first ??= loadOrCreateFleetCa(dbSecretStore(db()), { kek: env().fleetCaKek, algorithm: env().FLEET_CA_ALGORITHM }).catch(
    (err) => {
      g.first = undefined;
      throw err;
    },
  );
  return g.first;
}

export async function caState(): Promise<CaState> {
  const cached = g.cached;
  const age = cached ? Date.now() - cached.at : Infinity;
  if (cached && age < REFRESH_MS) return cached.state;
  const loading = (g.loading ??= refresh()
    .catch((err: unknown) => {
      // The database is away: the CAs loaded before still serve (a rollover waits for it anyway).
      const last = g.cached;
      if (!last) throw err;
      last.at = Date.now();
      return last.state;
    })
    .finally(() => (g.loading = undefined)));
  // While the rows are read again, heartbeats keep the state they had (a read can wait behind a
  // registration wave's writes); after invalidateCaState() (age is then huge) callers wait.
  return cached && age < REFRESH_MS + SERVE_STALE_MS ? cached.state : loading;
}

/** After this instance changed the rows: the next caState() reads them again, in every process of the instance. */
export const invalidateCaState = everywhere("invalidate-ca-state", () => {
  if (g.cached) g.cached.at = 0;
});

async function refresh(): Promise<CaState> {
  await firstLoad();
  const rows = await db().secret.findMany({
    where: { name: { in: [CA_SECRETS.bundle, CA_SECRETS.rollover] } },
    omit: { value: false },
  });
  const bundle = rows.find((r) => r.name === CA_SECRETS.bundle)?.value;
  const rollover = rows.find((r) => r.name === CA_SECRETS.rollover)?.value ?? null;
  if (!bundle) throw new Error(`The secret ${CA_SECRETS.bundle} disappeared; restore it from a backup.`);
  const key = `${bundle}\n${rollover ?? ""}`;
  const cached = g.cached;
  if (cached && cached.rows === key) {
    cached.at = Date.now();
    return cached.state;
  }
  try {
    const state = decodeCaState(bundle, rollover);
    g.cached = { state, at: Date.now(), rows: key };
    for (const listener of g.listeners) listener(state);
    return state;
  } catch (err) {
    // A running instance keeps its last good CAs (e.g. while an operator re-seals with a new KEK)
    // rather than failing every agent request.
    if (!cached) throw err;
    log.error("cannot read the fleet CA rows; keeping the CAs loaded before", { error: (err as Error).message });
    cached.at = Date.now();
    return cached.state;
  }
}

/** The CA state the stored rows describe (`fleet-ca.key`, and `fleet-ca.rollover` during a rollover). */
export function decodeCaState(bundle: string, rollover: string | null): CaState {
  const kek = env().fleetCaKek;
  const current = decodeStoredCa(bundle, kek);
  const incoming = rollover ? decodeStoredCa(rollover, kek, CA_SECRETS.rollover) : null;
  const serving = current.ca;
  const next = incoming?.ca ?? null;
  const trusted = next ? [serving, next] : [serving];
  const retiredFields = current.fields.retired as { fingerprint?: unknown; retiredAt?: unknown } | undefined;
  return {
    serving,
    next,
    issuing: next ?? serving,
    trusted,
    bundlePem: trusted.map((c) => c.certPem.trim() + "\n").join(""),
    rollover: incoming
      ? { startedAt: new Date(String(incoming.fields.startedAt)), startedBy: String(incoming.fields.startedBy ?? "") }
      : null,
    retired:
      typeof retiredFields?.fingerprint === "string" && typeof retiredFields.retiredAt === "string"
        ? { fingerprint: retiredFields.fingerprint, retiredAt: new Date(retiredFields.retiredAt) }
        : null,
    version: trusted.map((c) => c.fingerprint).join(","),
  };
}

/** The CA that signs new client certificates (the incoming one during a rollover). */
export async function fleetCa(): Promise<FleetCa> {
  return (await caState()).issuing;
}

/** Every CA whose client certificates are accepted, as one PEM bundle (the serving CA first). */
export async function caBundlePem(): Promise<string> {
  return (await caState()).bundlePem;
}
